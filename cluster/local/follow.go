package local

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

var _ cluster.LogFollower = (*Cluster)(nil)

// followPoll is how often a follower looks for growth of the log file: a
// line reaches the reader at most this long after the server wrote it.
const followPoll = 50 * time.Millisecond

// FollowLog follows node i's log file as `tail -f` does, from its end at
// the call, for as long as the process running at the call runs: the
// stream ends (io.EOF) once everything that process wrote is read, as on
// the docker runtime, where the daemon ends it at the container's exit.
// Lines of a later process of the same node, which the file holds after
// this one's, are never handed out: after a restart, call again. The
// runtime's own lines in the file (at each start and exit, see note) are
// left out: they are not the server's. When ctx is done, Read fails with
// its error.
func (c *Cluster) FollowLog(ctx context.Context, i int) (io.ReadCloser, error) {
	n, err := c.node(i)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock() // no process can start or end while the offset is taken
	if _, _, err := n.running(); err != nil {
		return nil, fmt.Errorf("follow the log of %w", err)
	}
	f, err := os.Open(n.log)
	if err != nil {
		return nil, fmt.Errorf("follow the log of %s: %w", n.srv(), err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("follow the log of %s: %w", n.srv(), err)
	}
	return newFollower(ctx, f, fi.Size(), n.done, n.end), nil
}

// follower reads a log file from an offset as it grows until the process
// whose done channel it holds has ended and its end is read.
type follower struct {
	ctx  context.Context
	f    *os.File
	off  int64
	done chan struct{} // closed when the process was reaped
	end  *runEnd       // read only after done

	closed    chan struct{}
	closeOnce sync.Once

	raw     []byte // the bytes of the last read
	partial []byte // the start of a line whose newline has not come yet
	ready   []byte // whole lines of the server, to hand out
	ended   bool   // the process ended and the file is read up to its end
}

func newFollower(ctx context.Context, f *os.File, off int64, done chan struct{}, end *runEnd) *follower {
	return &follower{ctx: ctx, f: f, off: off, done: done, end: end,
		closed: make(chan struct{})}
}

// Read hands out whole lines as soon as one is read, waiting for growth
// otherwise. A process cut off in the middle of a line (a kill) leaves that
// part as the last thing read.
func (r *follower) Read(p []byte) (int, error) {
	for len(r.ready) == 0 {
		select {
		case <-r.closed:
			return 0, os.ErrClosed
		default:
		}
		if r.ended {
			if len(r.partial) == 0 {
				return 0, io.EOF
			}
			r.ready, r.partial = r.partial, nil
			break
		}
		if err := r.ctx.Err(); err != nil {
			return 0, err
		}
		exited, err := r.readNew()
		if err != nil {
			if isClosed(r.closed) {
				return 0, os.ErrClosed
			}
			return 0, err
		}
		if exited {
			r.ended = true
			continue
		}
		if len(r.ready) > 0 {
			break
		}
		t := time.NewTimer(followPoll)
		select {
		case <-t.C:
		case <-r.done:
		case <-r.ctx.Done():
		case <-r.closed:
		}
		t.Stop()
	}
	n := copy(p, r.ready)
	r.ready = r.ready[n:]
	return n, nil
}

// readNew reads what the file gained since the last read and says whether
// the process had ended by then. The done channel is looked at after the
// read: still open, the process was alive when the read ended, so all it
// read was written before any later process started; closed, what lies
// beyond the size the file had when the process was reaped (before a later
// one could start) is cut off.
func (r *follower) readNew() (exited bool, err error) {
	from := r.off
	r.raw = r.raw[:0]
	for {
		if len(r.raw) == cap(r.raw) {
			r.raw = append(r.raw, make([]byte, 32<<10)...)[:len(r.raw)]
		}
		n, err := r.f.ReadAt(r.raw[len(r.raw):cap(r.raw)], r.off)
		r.raw = r.raw[:len(r.raw)+n]
		r.off += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return false, fmt.Errorf("follow %s: %w", r.f.Name(), err)
		}
	}
	exited = isClosed(r.done)
	if exited && r.end.logSize >= from && r.off > r.end.logSize {
		r.raw = r.raw[:r.end.logSize-from]
		r.off = r.end.logSize
	}
	r.take(r.raw)
	return exited, nil
}

// take splits b, with the partial line before it, into whole lines and
// keeps those the server wrote.
func (r *follower) take(b []byte) {
	r.partial = append(r.partial, b...)
	for {
		i := bytes.IndexByte(r.partial, '\n')
		if i < 0 {
			break
		}
		line := r.partial[:i+1]
		if !bytes.HasPrefix(line, []byte(notePrefix)) {
			r.ready = append(r.ready, line...)
		}
		r.partial = r.partial[i+1:]
	}
	r.partial = bytes.Clone(r.partial) // let the consumed bytes go
}

// Close releases the file; a Read blocked meanwhile returns os.ErrClosed.
func (r *follower) Close() error {
	var err error
	r.closeOnce.Do(func() {
		close(r.closed)
		err = r.f.Close()
	})
	return err
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
