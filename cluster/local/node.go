package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// ErrNotRunning is returned for a control that needs a running process
// (Kill, Stop, Pause, Resume, Memory) on a node that is down.
var ErrNotRunning = errors.New("node is not running")

// ErrRunning is returned by Start and Wipe on a node that is up.
var ErrRunning = errors.New("node is running")

// node is one nats-server process slot: same name, ports, config, store and
// log across every (re)start.
type node struct {
	c      *Cluster
	index  int
	slot   string                 // n1, n2, ...: names the config, store and log files
	server atomic.Pointer[string] // the server_name: the slot's until StartAs
	ports  nodePorts
	conf   string // config file
	log    string // stdout+stderr of every start, appended
	store  string // JetStream store_dir

	mu          sync.Mutex
	proc        *os.Process   // nil when down
	done        chan struct{} // closed when proc has been reaped
	end         *runEnd       // how proc ended, for whoever holds done
	gen         int           // starts so far; a pending auto-restart checks it
	paused      bool
	wantDown    bool // Kill/Stop/Close asked for the process to end
	exitCode    int
	startedAt   time.Time
	finishedAt  time.Time // the last exit, as reap saw it
	restarts    int       // auto-restarts
	crashStreak int       // unexpected exits of short-lived processes in a row
}

// runEnd is what the reaper records of one process's end before it closes
// the process's done channel; read it only after done is closed.
type runEnd struct {
	// logSize is the log file's size when the process was reaped: all it
	// wrote is before, any later process's lines after; -1 if unknown.
	logSize int64
}

// notePrefix starts every line the runtime itself writes to a node's log.
const notePrefix = "--- jetstream-chaos"

// srv is the node's current server_name.
func (n *node) srv() string { return *n.server.Load() }

func (n *node) clusterNode() cluster.Node {
	return cluster.Node{
		Name:       n.srv(),
		ClientURL:  fmt.Sprintf("nats://127.0.0.1:%d", n.ports.Client),
		MonitorURL: fmt.Sprintf("http://127.0.0.1:%d", n.ports.Monitor),
	}
}

// note appends a line of the runtime's own to the node's log, so the log
// tells when and why each process started and ended.
func (n *node) note(format string, args ...any) {
	f, err := os.OpenFile(n.log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %s: %s: %s\n", notePrefix, time.Now().UTC().Format(time.RFC3339Nano), n.srv(), fmt.Sprintf(format, args...))
}

// launchLocked starts the process. n.mu must be held.
func (n *node) launchLocked(reason string) error {
	if n.proc != nil {
		return fmt.Errorf("%s: %w", n.srv(), ErrRunning)
	}
	f, err := os.OpenFile(n.log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close() // the child has its own copy
	cmd := exec.Command(n.c.bin, "-c", n.conf)
	cmd.Dir = n.c.cfg.Dir
	cmd.Env = n.c.env
	cmd.Stdout, cmd.Stderr = f, f // an *os.File: the child writes it directly, no copier
	cmd.SysProcAttr = sysProcAttr()
	fmt.Fprintf(f, "%s %s: %s: %s: running %s -c %s%s\n", notePrefix, time.Now().UTC().Format(time.RFC3339Nano),
		n.srv(), reason, n.c.bin, n.conf, n.c.envNote)
	if err := spawn(cmd); err != nil {
		fmt.Fprintf(f, "%s: %s: could not start: %v\n", notePrefix, n.srv(), err)
		return fmt.Errorf("start %s: %w", n.srv(), err)
	}
	n.gen++
	n.proc = cmd.Process
	n.done = make(chan struct{})
	n.end = &runEnd{logSize: -1}
	n.paused = false
	n.exitCode = 0
	n.startedAt = time.Now()
	n.note("%s: pid %d", reason, cmd.Process.Pid)
	go n.reap(cmd, n.gen, n.done, n.end)
	return nil
}

// reap waits for the process, records how it ended and, when it was not
// asked to end and the config says so, schedules a restart.
func (n *node) reap(cmd *exec.Cmd, gen int, done chan struct{}, end *runEnd) {
	cmd.Wait() // the exit status is in cmd.ProcessState
	exited := time.Now()
	code, how := exitStatus(cmd.ProcessState)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.finishedAt = exited
	ran := time.Since(n.startedAt).Round(time.Millisecond)
	n.proc = nil
	n.paused = false
	n.exitCode = code
	// Before done and under mu: the next process starts under mu too, so
	// every line of this one is before this size and none of the next.
	if fi, err := os.Stat(n.log); err == nil {
		end.logSize = fi.Size()
	}
	close(done)
	if n.wantDown || n.c.closed.Load() {
		n.note("pid %d %s (exit %d) after %s, as asked", cmd.Process.Pid, how, code, ran)
		return
	}
	if !n.c.cfg.AutoRestart {
		n.note("pid %d %s (exit %d) after %s, not asked to; auto-restart is off", cmd.Process.Pid, how, code, ran)
		return
	}
	if ran > 10*time.Second {
		n.crashStreak = 0
	}
	delay := 250 * time.Millisecond << min(n.crashStreak, 5) // 250ms .. 8s, like a kubelet's back-off but shorter
	n.crashStreak++
	n.note("pid %d %s (exit %d) after %s, not asked to; restarting in %s", cmd.Process.Pid, how, code, ran, delay)
	time.AfterFunc(delay, func() { n.autoRestart(gen) })
}

func (n *node) autoRestart(gen int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	// Skip when someone started, killed, stopped or closed it meanwhile.
	if n.c.closed.Load() || n.wantDown || n.proc != nil || n.gen != gen {
		return
	}
	n.restarts++
	if err := n.launchLocked(fmt.Sprintf("auto-restart #%d", n.restarts)); err != nil {
		n.note("auto-restart failed: %v", err)
	}
}

// exitStatus reports an exit the way a shell or Docker does: a process
// killed by signal s exits 128+s (137 for SIGKILL).
func exitStatus(ps *os.ProcessState) (int, string) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), fmt.Sprintf("killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
	}
	return ps.ExitCode(), "exited"
}

// running returns the live process, or ErrNotRunning.
func (n *node) running() (*os.Process, chan struct{}, error) {
	if n.proc == nil {
		return nil, nil, fmt.Errorf("%s: %w", n.srv(), ErrNotRunning)
	}
	return n.proc, n.done, nil
}

// waitDone waits for the process to be reaped, for at most d (and ctx).
func waitDone(ctx context.Context, done chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	case <-t.C:
		return false
	}
}

// reapBound is how long a SIGKILLed process may take to be reaped. It is
// only exceeded by a process stuck in the kernel.
const reapBound = 10 * time.Second

func (n *node) kill(ctx context.Context) error {
	n.mu.Lock()
	n.wantDown = true
	p, done, err := n.running()
	if err == nil {
		err = p.Signal(syscall.SIGKILL) // works on a paused process too
	}
	n.mu.Unlock()
	if err != nil {
		if errors.Is(err, os.ErrProcessDone) {
			return nil // it died on its own just now; it is down either way
		}
		return fmt.Errorf("kill %w", err)
	}
	if !waitDone(context.WithoutCancel(ctx), done, reapBound) {
		return fmt.Errorf("kill %s: pid %d not reaped after %s", n.srv(), p.Pid, reapBound)
	}
	return nil
}

func (n *node) stop(ctx context.Context, grace time.Duration) error {
	n.mu.Lock()
	n.wantDown = true
	p, done, err := n.running()
	if err == nil {
		err = p.Signal(syscall.SIGTERM)
		if err == nil && n.paused {
			// A stopped process handles SIGTERM only once continued.
			err = p.Signal(syscall.SIGCONT)
			n.paused = false
		}
	}
	n.mu.Unlock()
	if err != nil {
		if errors.Is(err, os.ErrProcessDone) {
			return nil
		}
		return fmt.Errorf("stop %w", err)
	}
	if waitDone(ctx, done, grace) {
		return nil
	}
	n.note("pid %d did not exit %s after SIGTERM; sending SIGKILL", p.Pid, grace)
	p.Signal(syscall.SIGKILL)
	if !waitDone(context.WithoutCancel(ctx), done, reapBound) {
		return fmt.Errorf("stop %s: pid %d not reaped after SIGKILL", n.srv(), p.Pid)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("stop %s: %w; killed it instead", n.srv(), ctx.Err())
	}
	return nil
}

func (n *node) pause() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	p, _, err := n.running()
	if err != nil {
		return fmt.Errorf("pause %w", err)
	}
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("pause %s: %w", n.srv(), err)
	}
	n.paused = true
	// SIGSTOP is delivered asynchronously; return once the kernel shows the
	// process stopped, so a caller's next step sees it frozen.
	waitProcState(p.Pid, func(s byte) bool { return s == 'T' || s == 't' }, 2*time.Second)
	return nil
}

func (n *node) resume() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	p, _, err := n.running()
	if err != nil {
		return fmt.Errorf("resume %w", err)
	}
	if err := p.Signal(syscall.SIGCONT); err != nil {
		return fmt.Errorf("resume %s: %w", n.srv(), err)
	}
	n.paused = false
	waitProcState(p.Pid, func(s byte) bool { return s != 'T' && s != 't' }, 2*time.Second)
	return nil
}

// procState is the state letter of /proc/<pid>/stat (R, S, T, Z, ...), or 0.
func procState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// "pid (comm) S ...": comm may hold spaces and parentheses, so cut at the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

func waitProcState(pid int, ok func(byte) bool, d time.Duration) {
	deadline := time.Now().Add(d)
	for {
		s := procState(pid)
		if s == 0 || ok(s) || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitUp waits until the node serves clients and monitoring and has
// JetStream enabled; it does not wait for the node to catch up.
func (n *node) waitUp(ctx context.Context, done chan struct{}, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cn := n.clusterNode()
	mon := cluster.Monitor{Timeout: time.Second}
	var last error
	for {
		last = func() error {
			if _, err := mon.Healthz(ctx, cn, cluster.HealthzOptions{JSEnabledOnly: true}); err != nil {
				return err
			}
			var d net.Dialer
			conn, err := d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", n.ports.Client))
			if err != nil {
				return err
			}
			conn.Close()
			return nil
		}()
		if last == nil {
			return nil
		}
		select {
		case <-done:
			n.mu.Lock()
			code := n.exitCode
			n.mu.Unlock()
			return fmt.Errorf("%s exited (exit %d) while starting", n.srv(), code)
		case <-ctx.Done():
			return fmt.Errorf("%s not up after %s: %v", n.srv(), timeout, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// tail is the last lines of the node's log, indented, for error messages.
func (n *node) tail(lines int) string {
	return logTail(n.log, lines)
}

func logTail(path string, lines int) string {
	f, err := os.Open(path)
	if err != nil {
		return "  (no log: " + err.Error() + ")"
	}
	defer f.Close()
	const maxTail = 16 << 10
	fi, err := f.Stat()
	if err != nil {
		return "  (no log: " + err.Error() + ")"
	}
	off := max(0, fi.Size()-maxTail)
	buf := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(buf, off)
	s := strings.TrimRight(string(buf[:n]), "\n")
	all := strings.Split(s, "\n")
	if off > 0 && len(all) > 1 {
		all = all[1:] // a partial first line
	}
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return "  " + strings.Join(all, "\n  ")
}
