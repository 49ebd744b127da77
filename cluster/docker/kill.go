package docker

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// Kill sends SIGKILL. Docker never restarts a killed container, even with
// AutoRestart: only deaths nobody asked for are restarted. The moby client:
// a testcontainers Container can only stop (SIGTERM first).
//
// Where it can, Kill signals the server's process itself, which lands in
// microseconds; the daemon's kill call takes 50 to 700 ms on a busy
// machine, too slow for a fault aimed at a moment (kill@leader-change).
// That is only where the container has no restart policy (the daemon
// restarts a process that died without its kill call), is not paused (a
// frozen process takes the signal only once thawed), and the process is
// still the one the container started (its cgroup names the container).
func (c *dockerCluster) Kill(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	c.mu.Lock()
	pid, frozen := n.pid, n.frozen
	n.pid = 0
	c.mu.Unlock()
	if !c.cfg.AutoRestart && !frozen && ownedBy(pid, n.id) && syscall.Kill(pid, syscall.SIGKILL) == nil &&
		c.waitStopped(ctx, n) == nil {
		return nil // else the daemon's kill, which waits for the stop itself
	}
	if _, err := c.cli.ContainerKill(ctx, n.id, client.ContainerKillOptions{Signal: "SIGKILL"}); err != nil {
		return fmt.Errorf("kill %s: %w", n.srv(), err)
	}
	return nil
}

// waitStopped waits until the daemon has seen the node's process end, as
// its own kill call does before it returns: a Start right after Kill must
// not find the container still running (and leave it alone).
func (c *dockerCluster) waitStopped(ctx context.Context, n *node) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	w := c.cli.ContainerWait(ctx, n.id, client.ContainerWaitOptions{Condition: container.WaitConditionNotRunning})
	select {
	case <-w.Result:
		return nil
	case err := <-w.Error:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// rememberPid records the process of a node that just started, for Kill.
func (c *dockerCluster) rememberPid(ctx context.Context, n *node) {
	st, err := c.inspect(ctx, n)
	pid := 0
	if err == nil && st.State.Running {
		pid = st.State.Pid
	}
	c.mu.Lock()
	n.pid, n.frozen = pid, false
	c.mu.Unlock()
}

// ownedBy says whether process pid, on this machine, runs in the cgroup of
// container id: a pid is only signalled while it is the container's, never
// after the kernel has given it to another process.
func ownedBy(pid int, id string) bool {
	if pid <= 0 || id == "" {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	return err == nil && strings.Contains(string(b), id)
}
