package docker

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

var _ cluster.LogFollower = (*dockerCluster)(nil)

// FollowLog streams what node i's container writes to stdout and stderr
// (nats-server logs to stderr) from the moment of the call, through the
// daemon's log API with Follow. The node's container is the same across
// restarts and StartAs (a rename rewrites its config, not the container),
// so the index always names the container that is node i now.
//
// The daemon ends the stream when the container's process exits: after a
// restart, call again to follow the new process. Lines the new process
// wrote before that call are not replayed. "Now" is this machine's clock
// compared with the daemon's timestamps, the same clock for a local daemon;
// lines a skewed remote daemon stamps before it are lost.
func (c *dockerCluster) FollowLog(ctx context.Context, i int) (io.ReadCloser, error) {
	n, err := c.node(i)
	if err != nil {
		return nil, err
	}
	since := time.Now()
	st, err := c.inspect(ctx, n)
	if err != nil {
		return nil, fmt.Errorf("follow the log of %w", err)
	}
	if !st.State.Running {
		return nil, fmt.Errorf("follow the log of %s: the node is not running", n.srv())
	}
	// Since, not Tail "0": the daemon reads what was logged from since on
	// before it follows, so no line written between the inspect and the
	// request is missed. json-file reads the whole file to find it: a node
	// log is a few MB at most.
	r, err := c.cli.ContainerLogs(ctx, n.id, client.ContainerLogsOptions{
		ShowStdout: true, ShowStderr: true, Follow: true, Since: unixNano(since),
	})
	if err != nil {
		return nil, fmt.Errorf("follow the log of %s: %w", n.srv(), err)
	}
	if st.Config != nil && st.Config.Tty {
		return r, nil // a TTY's output comes raw, not multiplexed
	}
	return demux(ctx, r), nil
}

// demux turns the daemon's multiplexed log stream (8-byte frame headers
// naming stdout or stderr, see stdcopy) into the plain text of both streams
// in the order the daemon sent them. Each frame is handed on as soon as it
// is whole: the daemon frames a log line at a time, so a line never waits
// for the next. An error the daemon writes into the stream ends it with that
// error. A stream that ends because ctx was cancelled ends with ctx's
// error: the HTTP client closes the body then, and the read fails with
// whatever the race gives ("http: read on closed response body" was seen).
// Close stops the copy and waits for it.
func demux(ctx context.Context, src io.ReadCloser) io.ReadCloser {
	pr, pw := io.Pipe()
	d := &demuxed{PipeReader: pr, src: src, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		_, err := stdcopy.StdCopy(pw, pw, src)
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		pw.CloseWithError(err) // nil: io.EOF for the reader
	}()
	return d
}

type demuxed struct {
	*io.PipeReader
	src       io.ReadCloser
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// Close ends the copy: a write blocked on the pipe fails once the reader
// is closed, and a read blocked on the daemon's stream once that is.
func (d *demuxed) Close() error {
	d.closeOnce.Do(func() {
		d.PipeReader.Close()
		d.closeErr = d.src.Close()
		<-d.done
	})
	return d.closeErr
}
