package local

import (
	"context"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// quitForStacks ends a node that did not come up in time with SIGQUIT
// rather than SIGKILL: nats-server leaves SIGQUIT to the Go runtime
// (server/signal.go notifies INT, TERM, USR1, USR2 and HUP only), which
// writes every goroutine's stack to stderr, the node's log, and exits. So
// a start that hangs says where. It is marked down first (not a crash);
// a process still there after quitBound (a paused one) is killed.
func (n *node) quitForStacks(ctx context.Context) error {
	n.mu.Lock()
	n.wantDown = true
	p, done, err := n.running()
	if err == nil {
		err = p.Signal(syscall.SIGQUIT)
	}
	n.mu.Unlock()
	if errors.Is(err, os.ErrProcessDone) || errors.Is(err, ErrNotRunning) {
		return nil
	}
	if err == nil && waitDone(context.WithoutCancel(ctx), done, quitBound) {
		return nil
	}
	return n.kill(ctx)
}

// quitBound is how long a SIGQUIT process gets to print its stacks.
const quitBound = 3 * time.Second

// mainStack is the stack of goroutine 1 in a Go traceback in log, the one
// that runs nats-server's startup: where a start that never came up was
// stuck. "" when the log holds no traceback.
func mainStack(log string) string {
	starts := goroutine1.FindAllStringIndex(log, -1)
	if starts == nil {
		return ""
	}
	block := log[starts[len(starts)-1][0]:]
	if j := strings.Index(block, "\n\n"); j >= 0 {
		block = block[:j]
	}
	return block
}

// goroutine1 starts goroutine 1's block in both traceback formats:
// "goroutine 1 [chan receive]:", and "goroutine 1 gp=0x.. m=nil [chan
// receive]:" as a SIGQUIT of nats-server v2.11.8 printed it here.
var goroutine1 = regexp.MustCompile(`(?m)^goroutine 1 (gp=\S+ m=\S+ (mp=\S+ )?)?\[`)

// logSize is the node's log's length now, where a dump to come starts.
func (n *node) logSize() int64 {
	st, err := os.Stat(n.log)
	if err != nil {
		return 0
	}
	return st.Size()
}

// startupStack is mainStack of the node's log from offset from on (at
// most 1 MiB, indented): a dump an earlier start left is not this one's.
func (n *node) startupStack(from int64) string {
	f, err := os.Open(n.log)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return ""
	}
	b := make([]byte, 1<<20)
	k, _ := io.ReadFull(f, b)
	st := mainStack(string(b[:k]))
	if st == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(st, "\n", "\n  ")
}
