package docker

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
)

// frame is one frame of the daemon's multiplexed stream: the stream's
// number, three zero bytes, the payload's length (big-endian) and the
// payload (moby's api/pkg/stdcopy).
func frame(stream stdcopy.StdType, payload string) []byte {
	h := make([]byte, 8)
	h[0] = byte(stream)
	binary.BigEndian.PutUint32(h[4:], uint32(len(payload)))
	return append(h, payload...)
}

func TestDemux(t *testing.T) {
	for _, tc := range []struct {
		name    string
		frames  [][]byte
		want    string
		wantErr string
	}{
		{name: "both streams in the order sent",
			frames: [][]byte{frame(stdcopy.Stderr, "[1] [INF] a\n"), frame(stdcopy.Stdout, "out\n"), frame(stdcopy.Stderr, "[1] [INF] b\n")},
			want:   "[1] [INF] a\nout\n[1] [INF] b\n"},
		{name: "no frames", want: ""},
		{name: "an error from the daemon ends the stream",
			frames:  [][]byte{frame(stdcopy.Stderr, "line\n"), frame(stdcopy.Systemerr, "log file gone"), frame(stdcopy.Stderr, "never\n")},
			want:    "line\n",
			wantErr: "error from daemon in stream: log file gone"},
		{name: "an unknown stream is an error",
			frames:  [][]byte{frame(7, "x\n")},
			wantErr: "unrecognized stream: 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := io.NopCloser(bytes.NewReader(bytes.Join(tc.frames, nil)))
			r := demux(context.Background(), src)
			got, err := io.ReadAll(r)
			if string(got) != tc.want {
				t.Errorf("read %q, want %q", got, tc.want)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
			if err := r.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

// A line is readable as soon as its frame is whole, without waiting for
// the next frame; a frame cut in two (as a chunked HTTP body may deliver
// it) is handed on once its second half arrives, not before.
func TestDemuxHandsOnEachFrameAtOnce(t *testing.T) {
	pr, pw := io.Pipe()
	r := demux(context.Background(), pr)
	defer r.Close()
	lines := make(chan string, 10)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				lines <- string(buf[:n])
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	const bound = 100 * time.Millisecond
	for _, line := range []string{"[1] [INF] first\n", "[1] [INF] second\n"} {
		if _, err := pw.Write(frame(stdcopy.Stderr, line)); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-lines:
			if got != line {
				t.Fatalf("read %q, want %q", got, line)
			}
		case <-time.After(bound):
			t.Fatalf("%q not readable %s after its frame was written", line, bound)
		}
	}
	half := frame(stdcopy.Stderr, "[1] [INF] split\n")
	pw.Write(half[:10])
	select {
	case got := <-lines:
		t.Fatalf("read %q from half a frame", got)
	case <-time.After(20 * time.Millisecond):
	}
	pw.Write(half[10:])
	select {
	case got := <-lines:
		if got != "[1] [INF] split\n" {
			t.Fatalf("read %q, want the split line", got)
		}
	case <-time.After(bound):
		t.Fatalf("the split line not readable %s after its second half", bound)
	}
	pw.Close()
	if _, ok := <-lines; ok {
		t.Error("more after the source ended")
	}
}

// blockingSource is a daemon stream that sends nothing until closed.
type blockingSource struct {
	closed chan struct{}
}

func (b *blockingSource) Read([]byte) (int, error) {
	<-b.closed
	return 0, errors.New("read on closed body")
}

func (b *blockingSource) Close() error { close(b.closed); return nil }

// Close returns while the daemon sends nothing, having closed the daemon's
// stream and ended the copy; a Read blocked meanwhile returns.
func TestDemuxCloseWhileBlocked(t *testing.T) {
	src := &blockingSource{closed: make(chan struct{})}
	r := demux(context.Background(), src)
	readErr := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 10))
		readErr <- err
	}()
	closed := make(chan error, 1)
	go func() { closed <- r.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close blocked")
	}
	select {
	case <-src.closed:
	default:
		t.Error("the daemon's stream was not closed")
	}
	select {
	case err := <-readErr:
		if !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("blocked Read returned %v, want io.ErrClosedPipe", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a blocked Read did not return after Close")
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// closedBody fails its reads the way an HTTP body closed under a read does.
type closedBody struct{}

func (closedBody) Read([]byte) (int, error) {
	return 0, errors.New("http: read on closed response body")
}
func (closedBody) Close() error { return nil }

// TestDemuxCancelledEndsWithCtxErr: a stream whose ctx was cancelled ends
// with context.Canceled, whatever error the closed body's read gave (a
// clean-clone run saw "http: read on closed response body" reach the
// reader).
func TestDemuxCancelledEndsWithCtxErr(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := demux(ctx, closedBody{})
	defer r.Close()
	if _, err := io.ReadAll(r); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}
