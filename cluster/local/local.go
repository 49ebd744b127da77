// Package local runs a JetStream cluster as nats-server processes on
// 127.0.0.1: the runtime used when no Docker daemon answers.
//
// Every node gets client, monitoring and cluster ports picked at start and
// kept across restarts, a config in <Dir>/config/<name>.conf, a store in
// <Dir>/data/<name> and a log in <Dir>/logs/<name>.log (the process's
// stdout and stderr over all its starts, with a line of the runtime's own
// at each start and exit).
//
// Processes never outlive the toolkit: each runs in its own process group
// with a parent-death SIGKILL (Linux), and Close kills and reaps them all.
//
// Kill, Stop, Start, StartAs, Pause, Resume, Wipe and StoreDir are real.
// Partitions, latency, loss, bandwidth and hard memory limits are not
// possible for processes sharing the host's loopback and are refused with
// cluster.ErrUnsupported.
package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
)

// Name is the runtime's name, as in --runtime local.
const Name = "local"

// Why each control that cannot be real here is refused.
var refusals = map[cluster.Capability]string{
	cluster.CapPartition: "processes on loopback share one network namespace, so traffic between two nodes cannot be cut without cutting clients too; use the docker runtime (--runtime docker)",
	cluster.CapLatency:   "processes on loopback share one network namespace, so delay cannot be added between two nodes alone; use the docker runtime (--runtime docker)",
	cluster.CapLoss:      "processes on loopback share one network namespace, so packets cannot be dropped between two nodes alone; use the docker runtime (--runtime docker)",
	cluster.CapBandwidth: "processes on loopback share one network namespace and interface, so one node's traffic cannot be rate-limited alone; use the docker runtime (--runtime docker)",
	cluster.CapMemoryLimit: "a hard memory limit needs a cgroup per node, which plain processes do not have (GOMEMLIMIT alone is a soft target, not a limit); " +
		"use the docker runtime (--runtime docker)",
	cluster.CapPowerLoss: "local nodes write straight to this machine's disk, whose page cache survives a kill, so unsynced writes cannot be lost; " +
		"power loss needs the docker runtime's FUSE store (--runtime docker)",
}

func supports(c cluster.Capability) error {
	switch c {
	case cluster.CapKill, cluster.CapStop, cluster.CapPause, cluster.CapWipe, cluster.CapStoreFiles, cluster.CapRename, cluster.CapLogs:
		return nil
	}
	if why, ok := refusals[c]; ok {
		return cluster.Unsupported(Name, c, why)
	}
	return cluster.Unsupported(Name, c, "unknown control")
}

// Runtime starts clusters of local nats-server processes. The zero value
// is ready to use.
type Runtime struct {
	// Binary is the nats-server executable. "" means serverbin.Path for the
	// config's ServerVersion (built once, then cached).
	Binary string
	// ReadyTimeout bounds the wait for a new cluster to be ready
	// (cluster.WaitReady). Default 60s.
	ReadyTimeout time.Duration
	// NodeStartTimeout bounds Cluster.Start of one node. Default 30s.
	NodeStartTimeout time.Duration
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL.
	// Default 15s.
	StopGrace time.Duration
}

// New returns a Runtime with the defaults.
func New() *Runtime { return &Runtime{} }

var _ cluster.Runtime = (*Runtime)(nil)

// Name is "local".
func (r *Runtime) Name() string { return Name }

// Supports is nil for kill, stop, pause, wipe, store-files and rename, and a cluster.ErrUnsupported
// refusal saying why for everything else.
func (r *Runtime) Supports(c cluster.Capability) error { return supports(c) }

func (r *Runtime) readyTimeout() time.Duration { return orDefault(r.ReadyTimeout, 60*time.Second) }
func (r *Runtime) nodeTimeout() time.Duration  { return orDefault(r.NodeStartTimeout, 30*time.Second) }
func (r *Runtime) stopGrace() time.Duration    { return orDefault(r.StopGrace, 15*time.Second) }

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Paths of one node's files under a cluster directory.
func ConfigPath(dir, name string) string { return filepath.Join(dir, "config", name+".conf") }
func LogPath(dir, name string) string    { return filepath.Join(dir, "logs", name+".log") }
func StoreDir(dir, name string) string   { return filepath.Join(dir, "data", name) }

// Start starts cfg.Nodes servers and returns once cluster.WaitReady says the
// cluster is ready. On failure nothing it started is left running and the
// error ends with the tail of the failing node's log. An empty cfg.Dir is
// replaced by a new temporary directory (see Config().Dir).
func (r *Runtime) Start(ctx context.Context, cfg cluster.Config) (cluster.Cluster, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MemoryLimit > 0 {
		return nil, fmt.Errorf("memory limit %d bytes: %w", cfg.MemoryLimit, supports(cluster.CapMemoryLimit))
	}
	if cfg.StoreOnTmpfs {
		return nil, fmt.Errorf("store on tmpfs: %w", cluster.Unsupported(Name, "store-on-tmpfs", "the store is a directory under the run's Dir; use the docker runtime (--runtime docker)"))
	}
	bin := r.Binary
	if bin == "" {
		var err error
		if bin, err = serverbin.Path(ctx, cfg.ServerVersion); err != nil {
			return nil, err
		}
	}
	if cfg.Dir == "" {
		d, err := os.MkdirTemp("", "jetstream-chaos-local-")
		if err != nil {
			return nil, err
		}
		cfg.Dir = d
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	cfg.Dir = dir
	for _, sub := range []string{"config", "data", "logs"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	// Ports are picked free, but another program can take one before the
	// server binds it; then pick again.
	for attempt := 1; ; attempt++ {
		c, err := r.startOnce(ctx, cfg, bin)
		if err == nil {
			return c, nil
		}
		if attempt < 3 && errors.Is(err, errPortTaken) && ctx.Err() == nil {
			continue
		}
		return nil, err
	}
}

var errPortTaken = errors.New("a picked port was taken meanwhile")

func (r *Runtime) startOnce(ctx context.Context, cfg cluster.Config, bin string) (*Cluster, error) {
	ports, err := pickNodePorts(cfg.Nodes)
	if err != nil {
		return nil, err
	}
	c := &Cluster{rt: r, cfg: cfg, bin: bin, dial: cfg.ClientDial()}
	c.env, c.envNote = serverEnv(cfg)
	routes := make([]string, cfg.Nodes)
	for i, p := range ports {
		routes[i] = fmt.Sprintf("127.0.0.1:%d", p.Cluster)
	}
	c.routes = routes
	for i, p := range ports {
		name := cluster.NodeName(i)
		n := &node{c: c, index: i, slot: name, ports: p,
			conf: ConfigPath(cfg.Dir, name), log: LogPath(cfg.Dir, name), store: StoreDir(cfg.Dir, name)}
		n.server.Store(&name)
		if err := n.writeConf(); err != nil {
			return nil, err
		}
		c.nodes = append(c.nodes, n)
	}

	fail := func(n *node, err error) (*Cluster, error) {
		c.Close(context.WithoutCancel(ctx))
		if n == nil {
			return nil, fmt.Errorf("start local cluster: %w", err)
		}
		tail := n.tail(20)
		if strings.Contains(tail, "address already in use") {
			err = fmt.Errorf("%w: %v", errPortTaken, err)
		}
		return nil, fmt.Errorf("start local cluster: %w\nlast lines of %s:\n%s", err, n.log, tail)
	}

	dones := make([]chan struct{}, len(c.nodes))
	for i, n := range c.nodes {
		n.mu.Lock()
		err := n.launchLocked("start")
		dones[i] = n.done
		n.mu.Unlock()
		if err != nil {
			return fail(n, err)
		}
	}

	// Wait for readiness, but give up as soon as any process exits.
	readyCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	exited := make(chan *node, len(c.nodes))
	for i, n := range c.nodes {
		go func() {
			select {
			case <-dones[i]:
				exited <- n
				cancel()
			case <-readyCtx.Done():
			}
		}()
	}
	err = cluster.WaitReady(readyCtx, c, r.readyTimeout())
	if err == nil {
		return c, nil
	}
	select {
	case n := <-exited:
		n.mu.Lock()
		code := n.exitCode
		n.mu.Unlock()
		return fail(n, fmt.Errorf("%s exited (exit %d) before the cluster was ready", n.srv(), code))
	default:
	}
	return fail(c.blame(err), err)
}

// blame picks the node a readiness error names ("n2: ..."), else the first.
func (c *Cluster) blame(err error) *node {
	msg := err.Error()
	for _, n := range c.nodes {
		if strings.Contains(msg, ": "+n.srv()+": ") || strings.HasPrefix(msg, n.srv()+": ") {
			return n
		}
	}
	return c.nodes[0]
}

// serverEnv is the servers' environment: ours without GOMEMLIMIT, plus the
// config's GOMEMLIMIT if it sets one. The note goes into the log.
func serverEnv(cfg cluster.Config) ([]string, string) {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			env = append(env, kv)
		}
	}
	if l := cfg.GoMemLimitFor(); l > 0 {
		env = append(env, fmt.Sprintf("GOMEMLIMIT=%d", l))
		return env, fmt.Sprintf(" (GOMEMLIMIT=%d)", l)
	}
	return env, ""
}

// Cluster is a running set of local nats-server processes.
type Cluster struct {
	rt      *Runtime
	cfg     cluster.Config
	bin     string
	env     []string
	envNote string
	nodes   []*node
	routes  []string      // every node's cluster listener
	dial    *cluster.Dial // the clients' login (Config.ClientDial), the same for every node

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var _ cluster.Cluster = (*Cluster)(nil)

func (c *Cluster) Runtime() string        { return Name }
func (c *Cluster) Config() cluster.Config { return c.cfg }

// Binary is the nats-server executable the nodes run.
func (c *Cluster) Binary() string { return c.bin }

func (c *Cluster) Nodes() []cluster.Node {
	out := make([]cluster.Node, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.clusterNode()
		out[i].Dial = c.dial
	}
	return out
}

func (c *Cluster) node(i int) (*node, error) {
	if i < 0 || i >= len(c.nodes) {
		return nil, fmt.Errorf("no node %d in a cluster of %d", i, len(c.nodes))
	}
	if c.closed.Load() {
		return nil, errors.New("cluster is closed")
	}
	return c.nodes[i], nil
}

// PID is the node's process id, or 0 when it is down.
func (c *Cluster) PID(i int) int {
	if i < 0 || i >= len(c.nodes) {
		return 0
	}
	n := c.nodes[i]
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil {
		return 0
	}
	return n.proc.Pid
}

// Kill sends SIGKILL and waits until the process is reaped. The node stays
// down (no auto-restart) until Start.
func (c *Cluster) Kill(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	return n.kill(ctx)
}

// Stop sends SIGTERM (nats-server shuts down cleanly and exits 0) and waits,
// for at most the runtime's StopGrace, then SIGKILLs.
func (c *Cluster) Stop(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	return n.stop(ctx, c.rt.stopGrace())
}

// Start runs a down node again with the same config, ports and store, and
// returns once it serves clients and monitoring with JetStream enabled. It
// does not wait for the node to catch up: use cluster.WaitReady for that.
// If the node does not come up in time it is ended with SIGQUIT and the
// error ends with its startup goroutine's stack (quitForStacks), or the
// tail of its log when none was printed.
func (c *Cluster) Start(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.wantDown = false
	n.crashStreak = 0
	err = n.launchLocked("start")
	done := n.done
	n.mu.Unlock()
	if err != nil {
		return err
	}
	if err := n.waitUp(ctx, done, c.rt.nodeTimeout()); err != nil {
		from := n.logSize()
		n.quitForStacks(ctx)
		if st := n.startupStack(from); st != "" {
			return fmt.Errorf("start %w\nits startup goroutine at SIGQUIT (the rest in %s):\n%s", err, n.log, st)
		}
		return fmt.Errorf("start %w\nlast lines of %s:\n%s", err, n.log, n.tail(20))
	}
	return nil
}

// Pause freezes the process with SIGSTOP.
func (c *Cluster) Pause(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	return n.pause()
}

// Resume continues a paused process with SIGCONT.
func (c *Cluster) Resume(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	return n.resume()
}

// Wipe deletes the node's store directory. The node must be down.
func (c *Cluster) Wipe(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc != nil {
		return fmt.Errorf("wipe %s: %w; kill or stop it first", n.srv(), ErrRunning)
	}
	if err := os.RemoveAll(n.store); err != nil {
		return fmt.Errorf("wipe %s: %w", n.srv(), err)
	}
	n.note("store %s wiped", n.store)
	return nil
}

// SetMemoryLimit is refused: see Supports(cluster.CapMemoryLimit).
func (c *Cluster) SetMemoryLimit(ctx context.Context, i int, bytes int64) error {
	return supports(cluster.CapMemoryLimit)
}

// Memory is the process's resident set size (/proc/<pid>/statm).
func (c *Cluster) Memory(ctx context.Context, i int) (int64, error) {
	n, err := c.node(i)
	if err != nil {
		return 0, err
	}
	n.mu.Lock()
	p, _, err := n.running()
	n.mu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("memory %w", err)
	}
	b, err := residentBytes(p.Pid)
	if err != nil {
		return 0, fmt.Errorf("memory of %s: %w", n.srv(), err)
	}
	return b, nil
}

// State is what the runtime knows of the process. ExitCode is that of the
// last exit while the node is down (128+signal when killed by a signal), 0
// while it runs. OOM kills are not detected by this runtime.
func (c *Cluster) State(ctx context.Context, i int) (cluster.NodeState, error) {
	if i < 0 || i >= len(c.nodes) {
		return cluster.NodeState{}, fmt.Errorf("no node %d in a cluster of %d", i, len(c.nodes))
	}
	n := c.nodes[i]
	n.mu.Lock()
	defer n.mu.Unlock()
	return cluster.NodeState{
		Running:    n.proc != nil,
		Paused:     n.proc != nil && n.paused,
		Restarts:   n.restarts,
		ExitCode:   n.exitCode,
		StartedAt:  n.startedAt,
		FinishedAt: n.finishedAt,
	}, nil
}

// Partition is refused: see Supports(cluster.CapPartition).
func (c *Cluster) Partition(ctx context.Context, groups [][]int) error {
	return supports(cluster.CapPartition)
}

// Heal is refused like Partition: this runtime never partitions.
func (c *Cluster) Heal(ctx context.Context) error { return supports(cluster.CapPartition) }

func (c *Cluster) Supports(cp cluster.Capability) error { return supports(cp) }

// Close SIGKILLs every process and waits until all are reaped, even if ctx
// is already cancelled: none may outlive the run. Configs, stores and logs
// stay in Config().Dir. Safe to call more than once.
func (c *Cluster) Close(ctx context.Context) error {
	c.closeOnce.Do(func() {
		c.closed.Store(true) // stops pending auto-restarts
		var waits []chan struct{}
		for _, n := range c.nodes {
			n.mu.Lock()
			n.wantDown = true
			if n.proc != nil {
				n.proc.Signal(syscall.SIGKILL)
				waits = append(waits, n.done)
			}
			n.mu.Unlock()
		}
		var errs []error
		for _, d := range waits {
			if !waitDone(context.Background(), d, reapBound) {
				errs = append(errs, fmt.Errorf("a nats-server was not reaped %s after SIGKILL", reapBound))
			}
		}
		c.closeErr = errors.Join(errs...)
		for _, n := range c.nodes {
			cluster.ReleasePorts([]int{n.ports.Client, n.ports.Monitor, n.ports.Cluster})
		}
	})
	return c.closeErr
}
