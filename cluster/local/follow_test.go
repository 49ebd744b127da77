package local

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Tests of the follower on a file written by the test: no process runs.

const (
	oldLine  = "[10] 2026/01/02 10:00:00.000000 [INF] before the call\n"
	srvLine  = "[10] 2026/01/02 10:00:01.000000 [INF] JetStream cluster new stream leader for '$G > S'\n"
	noteLine = notePrefix + " 2026-01-02T10:00:02Z: n1: pid 10 killed by signal 9 (killed) (exit 137) after 2s, as asked\n"
	nextLine = "[11] 2026/01/02 10:00:03.000000 [INF] Starting nats-server\n"
)

// openLog writes content to a new log file and opens it for a follower.
func openLog(t *testing.T, content string) (*os.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "n1.log")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return f, path
}

func appendLog(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// A process that has ended: what the follower reads from its offset to the
// size the reaper recorded.
func TestFollowerEndedProcess(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		off     int64
		logSize int64 // -1: the reaper could not stat the file
		want    string
	}{
		{name: "from the offset to the recorded end, not the next process's lines",
			content: oldLine + srvLine + noteLine + nextLine, off: int64(len(oldLine)),
			logSize: int64(len(oldLine + srvLine)), want: srvLine},
		{name: "the runtime's notes are not the server's",
			content: oldLine + noteLine + srvLine + noteLine, off: int64(len(oldLine)),
			logSize: int64(len(oldLine + noteLine + srvLine + noteLine)), want: srvLine},
		{name: "a line cut off by the kill is the last thing read",
			content: srvLine + "[10] 2026/01/02 10:00:01.5 [INF] half", off: 0,
			logSize: int64(len(srvLine + "[10] 2026/01/02 10:00:01.5 [INF] half")), want: srvLine + "[10] 2026/01/02 10:00:01.5 [INF] half"},
		{name: "an unknown end reads to the end of the file",
			content: oldLine + srvLine + nextLine, off: int64(len(oldLine)), logSize: -1, want: srvLine + nextLine},
		{name: "nothing written after the call", content: oldLine, off: int64(len(oldLine)), logSize: int64(len(oldLine)), want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := openLog(t, tc.content)
			done := make(chan struct{})
			close(done)
			r := newFollower(context.Background(), f, tc.off, done, &runEnd{logSize: tc.logSize})
			defer r.Close()
			got, err := io.ReadAll(r)
			if err != nil || string(got) != tc.want {
				t.Errorf("read %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// reader reads r in the background, one chunk a message, as a caller of
// FollowLog does.
func reader(r io.Reader) (chan string, chan error) {
	chunks, end := make(chan string, 100), make(chan error, 1)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				chunks <- string(buf[:n])
			}
			if err != nil {
				end <- err
				return
			}
		}
	}()
	return chunks, end
}

// followBound is how soon a written line must be read (the poll is 50 ms;
// log-triggered faults need the line within about 100 ms).
const followBound = 100 * time.Millisecond

// A live process: each line is read within the bound of its write, without
// waiting for another; a partial line waits for its newline; the next
// process's lines are not read after the end.
func TestFollowerLive(t *testing.T) {
	f, path := openLog(t, oldLine)
	done, end := make(chan struct{}), &runEnd{logSize: -1}
	r := newFollower(context.Background(), f, int64(len(oldLine)), done, end)
	defer r.Close()
	chunks, ended := reader(r)
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-chunks:
			if got != want {
				t.Fatalf("read %q, want %q", got, want)
			}
		case <-time.After(followBound):
			t.Fatalf("%q not read %s after it was written", want, followBound)
		}
	}
	appendLog(t, path, srvLine)
	expect(srvLine)
	appendLog(t, path, noteLine+"[10] 2026/01/02 10:00:04.000000 [INF] part")
	select {
	case got := <-chunks:
		t.Fatalf("read %q before the line's newline", got)
	case <-time.After(2 * followPoll):
	}
	appendLog(t, path, " two\n")
	expect("[10] 2026/01/02 10:00:04.000000 [INF] part two\n")

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	end.logSize = fi.Size()
	close(done)
	// The next process starts at once: whether or not the follower has
	// looked since, its lines are not this process's.
	appendLog(t, path, noteLine+nextLine)
	select {
	case err := <-ended:
		if err != io.EOF {
			t.Errorf("ended with %v, want io.EOF", err)
		}
	case <-time.After(time.Second):
		t.Fatal("the stream did not end after the process did")
	}
	select {
	case got := <-chunks:
		t.Errorf("read %q after the process ended", got)
	default:
	}
}

// A blocked Read returns when ctx is done (its error) or when the follower
// is closed (os.ErrClosed).
func TestFollowerStops(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(cancel context.CancelFunc, r io.Closer)
		want error
	}{
		{"ctx done", func(cancel context.CancelFunc, _ io.Closer) { cancel() }, context.Canceled},
		{"closed", func(_ context.CancelFunc, r io.Closer) { r.Close() }, os.ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := openLog(t, oldLine)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := newFollower(ctx, f, int64(len(oldLine)), make(chan struct{}), &runEnd{logSize: -1})
			defer r.Close()
			_, ended := reader(r)
			time.Sleep(2 * followPoll) // blocked in its wait
			tc.stop(cancel, r)
			select {
			case err := <-ended:
				if !errors.Is(err, tc.want) {
					t.Errorf("Read returned %v, want %v", err, tc.want)
				}
			case <-time.After(followBound):
				t.Fatalf("Read still blocked %s after the stop", followBound)
			}
		})
	}
}
