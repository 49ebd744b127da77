package external

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// extCluster is one cell's view of the external cluster. It remembers what
// its hooks did (which nodes it took down or froze, the partition in
// force), so that State can read silence right, Start and Resume act only
// on nodes the run itself stopped, and Close undoes what is left.
type extCluster struct {
	rt    *Runtime
	cfg   cluster.Config
	nodes []cluster.Node
	hooks *hookRunner
	log   *os.File

	mu        sync.Mutex
	down      map[int]bool // taken down by a hook and not started since
	paused    map[int]bool // frozen by a hook and not resumed since
	partition [][]int      // in force (or maybe: its hook failed); nil when healed
	started   map[int]time.Time
	expect    map[int]bool // a hook may have restarted it: a new start time is no crash
	restarts  map[int]int  // new start times nobody asked for
	closed    bool
}

var _ cluster.Cluster = (*extCluster)(nil)

func newCluster(r *Runtime, cfg cluster.Config, nodes []cluster.Node) *extCluster {
	c := &extCluster{rt: r, cfg: cfg, nodes: nodes, hooks: &hookRunner{hooks: r.o.Hooks, timeout: r.o.HookTimeout},
		down: map[int]bool{}, paused: map[int]bool{}, started: map[int]time.Time{}, expect: map[int]bool{}, restarts: map[int]int{}}
	if cfg.External != nil {
		for i, s := range cfg.External.Servers {
			c.started[i] = s.Start
		}
	}
	if cfg.Dir != "" {
		if err := os.MkdirAll(filepath.Join(cfg.Dir, "logs"), 0o755); err == nil {
			if f, err := os.OpenFile(filepath.Join(cfg.Dir, "logs", "hooks.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
				c.log = f
				c.hooks.setLog(f)
			}
		}
	}
	return c
}

func (c *extCluster) Runtime() string        { return Name }
func (c *extCluster) Config() cluster.Config { return c.cfg }
func (c *extCluster) Nodes() []cluster.Node  { return append([]cluster.Node(nil), c.nodes...) }

func (c *extCluster) node(i int) (cluster.Node, error) {
	if i < 0 || i >= len(c.nodes) {
		return cluster.Node{}, fmt.Errorf("no node %d in a %d-node cluster", i, len(c.nodes))
	}
	return c.nodes[i], nil
}

// monitor reads the nodes' monitoring endpoints within --probe-timeout.
func (c *extCluster) monitor() cluster.Monitor { return cluster.Monitor{Timeout: c.rt.o.ProbeTimeout} }

func (c *extCluster) names() []string {
	out := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = n.Name
	}
	return out
}

// nodeHook runs a node control's hook. The state is marked before the hook
// runs: a hook that fails may still have acted, and Close must undo it.
func (c *extCluster) nodeHook(ctx context.Context, control string, i int, mark func()) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	c.mu.Lock()
	mark()
	c.expect[i] = true
	c.mu.Unlock()
	return c.hooks.run(ctx, control, map[string]string{"node": n.Name, "index": strconv.Itoa(i), "all": strings.Join(c.names(), " ")})
}

func (c *extCluster) Kill(ctx context.Context, i int) error {
	return c.nodeHook(ctx, "kill", i, func() { c.down[i] = true })
}

func (c *extCluster) Stop(ctx context.Context, i int) error {
	return c.nodeHook(ctx, "stop", i, func() { c.down[i] = true })
}

func (c *extCluster) Wipe(ctx context.Context, i int) error {
	return c.nodeHook(ctx, "wipe", i, func() {})
}

// Start runs the start hook on a node the run took down. A node that is
// down for another reason is not the run's to start.
func (c *extCluster) Start(ctx context.Context, i int) error {
	c.mu.Lock()
	ours := c.down[i]
	c.mu.Unlock()
	if !ours {
		return fmt.Errorf("%s: the run did not take it down, so it leaves it alone", c.nameOf(i))
	}
	if err := c.nodeHook(ctx, "start", i, func() {}); err != nil {
		return err
	}
	c.mu.Lock()
	delete(c.down, i)
	c.mu.Unlock()
	return nil
}

func (c *extCluster) Pause(ctx context.Context, i int) error {
	return c.nodeHook(ctx, "pause", i, func() { c.paused[i] = true })
}

// Resume runs the resume hook on a node the run froze.
func (c *extCluster) Resume(ctx context.Context, i int) error {
	c.mu.Lock()
	ours := c.paused[i]
	c.mu.Unlock()
	if !ours {
		return fmt.Errorf("%s: the run did not pause it, so it leaves it alone", c.nameOf(i))
	}
	if err := c.nodeHook(ctx, "resume", i, func() {}); err != nil {
		return err
	}
	c.mu.Lock()
	delete(c.paused, i)
	c.mu.Unlock()
	return nil
}

func (c *extCluster) nameOf(i int) string {
	if n, err := c.node(i); err == nil {
		return n.Name
	}
	return fmt.Sprintf("node %d", i)
}

// Partition runs the partition hook with the sides filled in (see Hooks).
func (c *extCluster) Partition(ctx context.Context, groups [][]int) error {
	vars, err := c.partitionVars(groups)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.partition = groups
	c.mu.Unlock()
	return c.hooks.run(ctx, "partition", vars)
}

// Heal runs the heal hook when a partition of the run is (or may be) in
// force, with the same variables; with none it does nothing.
func (c *extCluster) Heal(ctx context.Context) error {
	c.mu.Lock()
	groups := c.partition
	c.mu.Unlock()
	if groups == nil {
		return nil
	}
	vars, err := c.partitionVars(groups)
	if err != nil {
		return err
	}
	if err := c.hooks.run(ctx, "heal", vars); err != nil {
		return err
	}
	c.mu.Lock()
	c.partition = nil
	c.mu.Unlock()
	return nil
}

// partitionVars describes groups for the templates: the largest group is
// {others}, everyone else {nodes}. A cut into more than two sides needs a
// template that reads {groups}.
func (c *extCluster) partitionVars(groups [][]int) (map[string]string, error) {
	names := c.names()
	in := map[int]bool{}
	var sides [][]string
	for _, g := range groups {
		var side []string
		for _, i := range g {
			if i < 0 || i >= len(names) || in[i] {
				return nil, fmt.Errorf("partition %v: bad or repeated node %d", groups, i)
			}
			in[i] = true
			side = append(side, names[i])
		}
		if len(side) > 0 {
			sides = append(sides, side)
		}
	}
	for i, n := range names {
		if !in[i] {
			sides = append(sides, []string{n}) // in no group: cut off from everyone
		}
	}
	largest := 0
	for k, s := range sides {
		if len(s) > len(sides[largest]) {
			largest = k
		}
	}
	var nodes, groupWords []string
	for k, s := range sides {
		groupWords = append(groupWords, strings.Join(s, ","))
		if k != largest {
			nodes = append(nodes, s...)
		}
	}
	if len(sides) > 2 && !strings.Contains(c.rt.o.Hooks["partition"], "{groups}") {
		return nil, fmt.Errorf("partition into %d sides (%s): the partition hook reads only {nodes} and {others}, which describe two; use {groups}", len(sides), strings.Join(groupWords, " "))
	}
	others := sides[largest]
	return map[string]string{
		"all": strings.Join(names, " "), "groups": strings.Join(groupWords, " "),
		"nodes": strings.Join(nodes, " "), "nodes_csv": strings.Join(nodes, ","),
		"others": strings.Join(others, " "), "others_csv": strings.Join(others, ","),
	}, nil
}

func (c *extCluster) SetMemoryLimit(context.Context, int, int64) error {
	return c.rt.Supports(cluster.CapMemoryLimit)
}

// Memory is the resident set size the server reports in /varz: there is no
// cgroup to read on a cluster the toolkit did not start.
func (c *extCluster) Memory(ctx context.Context, i int) (int64, error) {
	n, err := c.node(i)
	if err != nil {
		return 0, err
	}
	v, err := c.monitor().Varz(ctx, n)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", n.Name, err)
	}
	return v.Mem, nil
}

// State is what the node's /varz shows within --probe-timeout: an answer
// is running (a changed start time that no hook explains counts as a
// restart nobody asked for); a refused connection (or no route, no such
// host) is not running; silence is paused if the run paused the node, not
// running if the run took it down, and otherwise an error, since it could
// be either or a slow network. OOM kills cannot be seen from outside.
func (c *extCluster) State(ctx context.Context, i int) (cluster.NodeState, error) {
	n, err := c.node(i)
	if err != nil {
		return cluster.NodeState{}, err
	}
	v, perr := c.monitor().Varz(ctx, n)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch classify(perr) {
	case answered:
		if perr == nil && !v.Start.IsZero() && !v.Start.Equal(c.started[i]) {
			if !c.expect[i] {
				c.restarts[i]++
			}
			c.started[i], c.expect[i] = v.Start, false
		}
		return cluster.NodeState{Running: true, StartedAt: c.started[i], Restarts: c.restarts[i]}, nil
	case gone:
		return cluster.NodeState{Restarts: c.restarts[i]}, nil
	case silent:
		switch {
		case c.paused[i]:
			return cluster.NodeState{Running: true, Paused: true, StartedAt: c.started[i], Restarts: c.restarts[i]}, nil
		case c.down[i]:
			return cluster.NodeState{Restarts: c.restarts[i]}, nil
		}
		return cluster.NodeState{}, fmt.Errorf("%s: its monitor did not answer within --probe-timeout %s and the run neither paused nor stopped it", n.Name, c.rt.o.ProbeTimeout)
	}
	return cluster.NodeState{}, fmt.Errorf("%s: %v", n.Name, perr)
}

// Close undoes what the run's hooks left in force (a partition not healed,
// a node it froze or took down that is not back), saves each server's
// /varz in logs/, deletes the run's streams, and never stops a server. It
// is safe to call more than once.
func (c *extCluster) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	var errs []error
	if err := c.restore(ctx); err != nil {
		errs = append(errs, err)
	}
	c.saveVarz(ctx)
	if err := c.rt.deleteOwn(ctx, c.nodes); err != nil {
		errs = append(errs, err)
	}
	c.closeLog()
	return errors.Join(errs...)
}

func (c *extCluster) restore(ctx context.Context) error {
	var errs []error
	if err := c.Heal(ctx); err != nil {
		errs = append(errs, fmt.Errorf("the partition may still be in force: %v", err))
	}
	for i := range c.nodes {
		c.mu.Lock()
		paused, down := c.paused[i], c.down[i]
		c.mu.Unlock()
		if paused {
			if err := c.Resume(ctx, i); err != nil {
				errs = append(errs, fmt.Errorf("%s may still be paused: %v", c.nodes[i].Name, err))
			}
		}
		if !down {
			continue
		}
		if st, err := c.State(ctx, i); err == nil && st.Running {
			continue // back by itself, as a StatefulSet's pod is
		}
		if err := c.Start(ctx, i); err != nil {
			errs = append(errs, fmt.Errorf("%s may still be down: %v", c.nodes[i].Name, err))
		}
	}
	return errors.Join(errs...)
}

// saveVarz keeps what each server said of itself at the end of the cell,
// in place of the node logs a runtime that starts servers would save.
func (c *extCluster) saveVarz(ctx context.Context) {
	if c.cfg.Dir == "" {
		return
	}
	for _, n := range c.nodes {
		var v json.RawMessage
		if err := c.monitor().Get(ctx, n, "/varz", &v); err != nil {
			v, _ = json.Marshal(map[string]string{"error": err.Error()})
		}
		_ = os.WriteFile(filepath.Join(c.cfg.Dir, "logs", n.Name+".varz.json"), v, 0o644)
	}
}

func (c *extCluster) closeLog() {
	c.hooks.setLog(nil)
	if c.log != nil {
		c.log.Close()
		c.log = nil
	}
}

// Supports is the runtime's answer: the hooks are the same for every cell.
func (c *extCluster) Supports(cp cluster.Capability) error { return c.rt.Supports(cp) }

// SetLoss is refused: see Supports(cluster.CapLoss).
func (c *extCluster) SetLoss(context.Context, int, float64) error {
	return c.rt.Supports(cluster.CapLoss)
}

// SetRate is refused: see Supports(cluster.CapBandwidth).
func (c *extCluster) SetRate(context.Context, int, uint64) error {
	return c.rt.Supports(cluster.CapBandwidth)
}

// NetStats is refused: the run shapes nothing on an external cluster.
func (c *extCluster) NetStats(context.Context, int) (cluster.NetStats, error) {
	return cluster.NetStats{}, c.rt.Supports(cluster.CapLoss)
}

// StoreDir is refused: see Supports(cluster.CapStoreFiles).
func (c *extCluster) StoreDir(int) (string, error) {
	return "", c.rt.Supports(cluster.CapStoreFiles)
}

// StartAs is refused: see Supports(cluster.CapRename).
func (c *extCluster) StartAs(context.Context, int, string) error {
	return c.rt.Supports(cluster.CapRename)
}
