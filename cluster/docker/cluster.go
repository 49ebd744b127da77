package docker

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/lazyfs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

var loopback = netip.MustParseAddr("127.0.0.1")

// noLimit is cgroup v1's "unlimited" (the largest page multiple). Docker
// reads a memory limit of 0 in an update as "unchanged" and rejects -1, so
// removing a limit means setting this.
const noLimit = (1<<63 - 1) &^ 4095

type node struct {
	// slot names the node's container, network alias, config, store and
	// log (n1, n2, ...); the server_name is the slot's until StartAs.
	slot, container string
	server          atomic.Pointer[string]   // current server_name
	ctr             testcontainers.Container // nil until created
	id              string                   // container ID, for the moby client
	clientPort      int                      // on 127.0.0.1
	monitorPort     int
	dataDir         string     // host store dir; "" on tmpfs
	store           *lazyfs.FS // the FUSE mount at dataDir with Config.PowerLossStore, else nil
	routes          []string   // every node's route URL, for its config

	// Guarded by dockerCluster.mu.
	ip          string  // last known address on the private network
	loss        float64 // percent, in force until SetLoss(0); see shape.go
	rate        uint64  // bytes/s, in force until SetRate(0)
	lossSet     bool    // loss rules may be in the node and must be removed at 0
	rateSet     bool
	restartBase int    // policy restarts before our last Start (Docker resets the count)
	memFile     string // cgroup memory file, once found
	pid         int    // the server's process on this machine since its last start, 0 if unknown
	frozen      bool   // paused by Pause: a signal waits for the thaw, so Kill goes through the daemon
}

type dockerCluster struct {
	cli         *client.Client // what testcontainers cannot do; see docker.go
	cfg         cluster.Config
	image       string
	id          string // unique; labels and names
	network     *testcontainers.DockerNetwork
	netName     string // the network's, once created
	nodes       []*node
	ports       []int
	stopTimeout time.Duration
	dial        *cluster.Dial // the clients' login (Config.ClientDial), the same for every node
	text        string        // the host tmpfs directory the nodes run the server from ("": the image's; text.go)

	mu       sync.Mutex
	oomKills map[int]int  // by node index, from the events stream
	oomLife  map[int]bool // an OOM kill of the node is counted since its last start
	groups   [][]int      // the partition in force; nil when healed

	applyMu sync.Mutex // one partition rewrite at a time

	stopWatch func()
	watchDone chan struct{}

	closeMu   sync.Mutex
	logsSaved bool
	closed    bool
}

var _ cluster.Cluster = (*dockerCluster)(nil)

// srv is the node's current server_name, for Nodes and error messages.
func (n *node) srv() string { return *n.server.Load() }

func (c *dockerCluster) Runtime() string        { return "docker" }
func (c *dockerCluster) Config() cluster.Config { return c.cfg }

// Network names the cluster's private bridge, on which every node answers
// to its slot (n1:4222, n1:8222, ...): a container run on it reaches them.
func (c *dockerCluster) Network() string { return c.netName }

func (c *dockerCluster) Nodes() []cluster.Node {
	out := make([]cluster.Node, len(c.nodes))
	for i, n := range c.nodes {
		out[i] = cluster.Node{
			Name:       n.srv(),
			ClientURL:  fmt.Sprintf("nats://127.0.0.1:%d", n.clientPort),
			MonitorURL: fmt.Sprintf("http://127.0.0.1:%d", n.monitorPort),
			Dial:       c.dial,
		}
	}
	return out
}

func (c *dockerCluster) node(i int) (*node, error) {
	if i < 0 || i >= len(c.nodes) {
		return nil, fmt.Errorf("no node %d in a %d-node cluster", i, len(c.nodes))
	}
	return c.nodes[i], nil
}

func (c *dockerCluster) inspect(ctx context.Context, n *node) (container.InspectResponse, error) {
	if n.ctr == nil {
		return container.InspectResponse{}, fmt.Errorf("%s: no container", n.srv())
	}
	r, err := n.ctr.Inspect(ctx)
	if err != nil {
		return container.InspectResponse{}, fmt.Errorf("%s: %w", n.srv(), err)
	}
	if r.State == nil {
		return container.InspectResponse{}, fmt.Errorf("%s: inspect has no state", n.srv())
	}
	return *r, nil
}

// Stop sends SIGTERM and waits up to the stop timeout before SIGKILL.
func (c *dockerCluster) Stop(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	if n.ctr == nil {
		return fmt.Errorf("stop %s: no container", n.srv())
	}
	timeout := c.stopTimeout // Docker takes whole seconds
	if err := n.ctr.Stop(ctx, &timeout); err != nil {
		return fmt.Errorf("stop %s: %w", n.srv(), err)
	}
	return nil
}

// Start starts a stopped or killed node (a running one is left alone) and
// puts back the partition in force: a new container start gets a fresh
// network namespace, without the old rules, and maybe a new address. The
// rules can only go in once the container runs, so for a few milliseconds a
// restarted node of a partitioned cluster is unfiltered.
func (c *dockerCluster) Start(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	st, err := c.inspect(ctx, n)
	if err != nil {
		return err
	}
	if st.State.Running {
		return nil
	}
	if n.store != nil && !n.store.Mounted() {
		return fmt.Errorf("start %s: its power-loss store is not mounted (a failed power loss?); not starting it on the bare directory", n.srv())
	}
	c.mu.Lock()
	n.restartBase += st.RestartCount
	c.mu.Unlock()
	if err := n.ctr.Start(ctx); err != nil {
		return fmt.Errorf("start %s: %w", n.srv(), err)
	}
	c.rememberPid(ctx, n)
	return c.applyNetwork(ctx)
}

// Pause freezes every process of the node (cgroup freezer). The moby client:
// testcontainers has no pause.
func (c *dockerCluster) Pause(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	c.mu.Lock()
	n.frozen = true // before the call: a pause that failed half-way is not to be trusted either
	c.mu.Unlock()
	if _, err := c.cli.ContainerPause(ctx, n.id, client.ContainerPauseOptions{}); err != nil {
		return fmt.Errorf("pause %s: %w", n.srv(), err)
	}
	return nil
}

// Resume thaws a paused node and catches it up on partition changes made
// while it was frozen (docker exec cannot enter a paused container).
func (c *dockerCluster) Resume(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	if _, err := c.cli.ContainerUnpause(ctx, n.id, client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("resume %s: %w", n.srv(), err)
	}
	c.mu.Lock()
	n.frozen = false
	c.mu.Unlock()
	return c.applyNetwork(ctx)
}

// Wipe deletes a stopped node's store from the host. On tmpfs there is
// nothing to delete: the store went with the container's last run.
func (c *dockerCluster) Wipe(ctx context.Context, i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	st, err := c.inspect(ctx, n)
	if err != nil {
		return err
	}
	if st.State.Running || st.State.Restarting {
		return fmt.Errorf("wipe %s: the node is running; stop or kill it first", n.srv())
	}
	if n.dataDir == "" {
		return nil
	}
	if n.store != nil { // through the mount, or the store's journal would undo the wipe
		return n.store.Wipe()
	}
	if err := os.RemoveAll(n.dataDir); err != nil {
		return fmt.Errorf("wipe %s: %w", n.srv(), err)
	}
	return os.MkdirAll(n.dataDir, 0o755)
}

// SetMemoryLimit changes the cgroup limit of a node, running or not (0
// removes it), with the moby client's ContainerUpdate (testcontainers cannot
// change a created container). GOMEMLIMIT cannot follow: it is an
// environment variable read once by the Go runtime at process start, fixed
// when the container was created, so it keeps the value derived from
// Config.MemoryLimit.
func (c *dockerCluster) SetMemoryLimit(ctx context.Context, i int, bytes int64) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	if bytes < 0 {
		return fmt.Errorf("memory limit of %s must not be negative", n.srv())
	}
	if bytes == 0 {
		bytes = noLimit
	}
	// Memory and swap together, equal: no swap, and cgroup v1 refuses a
	// memory limit above the current memory+swap limit.
	r := &container.Resources{Memory: bytes, MemorySwap: bytes}
	if _, err := c.cli.ContainerUpdate(ctx, n.id, client.ContainerUpdateOptions{Resources: r}); err != nil {
		return fmt.Errorf("set memory limit of %s: %w", n.srv(), err)
	}
	return nil
}

// State reads the container's state. OOMKilled is Docker's flag for the
// last death (it stays set while the node runs again after an automatic
// restart); OOMKills counts every OOM kill on the events stream since the
// cluster started, and Restarts every restart Docker made by itself.
func (c *dockerCluster) State(ctx context.Context, i int) (cluster.NodeState, error) {
	n, err := c.node(i)
	if err != nil {
		return cluster.NodeState{}, err
	}
	st, err := c.inspect(ctx, n)
	if err != nil {
		return cluster.NodeState{}, err
	}
	started, _ := time.Parse(time.RFC3339Nano, st.State.StartedAt)
	finished, _ := time.Parse(time.RFC3339Nano, st.State.FinishedAt) // the exit the shim saw
	c.mu.Lock()
	defer c.mu.Unlock()
	return cluster.NodeState{
		Running:    st.State.Running,
		Paused:     st.State.Paused,
		OOMKilled:  st.State.OOMKilled,
		OOMKills:   c.oomKills[i],
		Restarts:   n.restartBase + st.RestartCount,
		ExitCode:   st.State.ExitCode,
		StartedAt:  started,
		FinishedAt: finished,
	}, nil
}

// Supports: everything but latency, which needs sch_netem; a store on
// tmpfs has no files to change; power loss needs the FUSE store.
func (c *dockerCluster) Supports(cp cluster.Capability) error {
	if cp == cluster.CapPowerLoss {
		return c.supportsPowerLoss()
	}
	if cp == cluster.CapStoreFiles && c.cfg.StoreOnTmpfs {
		return storeOnTmpfs(cp)
	}
	return supports(cp)
}

func supports(c cluster.Capability) error {
	switch c {
	case cluster.CapKill, cluster.CapStop, cluster.CapPause, cluster.CapWipe, cluster.CapMemoryLimit, cluster.CapPartition,
		cluster.CapLoss, cluster.CapBandwidth, cluster.CapStoreFiles, cluster.CapRename, cluster.CapLogs:
		return nil
	case cluster.CapPowerLoss:
		return supportsPowerLoss()
	case cluster.CapLatency:
		if !haveNetem() {
			return cluster.Unsupported("docker", c, "the kernel has no sch_netem, the only qdisc that delays packets (loss and bandwidth work without it)")
		}
		return cluster.Unsupported("docker", c, "netem delay is not implemented yet")
	default:
		return cluster.Unsupported("docker", c, "unknown capability")
	}
}

// haveNetem probes the kernel shared with the containers (a local daemon).
func haveNetem() bool {
	if _, err := os.Stat("/sys/module/sch_netem"); err == nil {
		return true
	}
	var uts syscall.Utsname
	if syscall.Uname(&uts) == nil {
		rel := make([]byte, 0, len(uts.Release))
		for _, b := range uts.Release {
			if b == 0 {
				break
			}
			rel = append(rel, byte(b))
		}
		m, _ := filepath.Glob(filepath.Join("/lib/modules", string(rel), "kernel/net/sched/sch_netem.ko*"))
		return len(m) > 0
	}
	return false
}

// Close saves every node's log to Dir/logs/<name>.log, then terminates the
// containers and removes the network, never the image (testcontainers
// deletes only images it built, and it built none). It does not depend on any
// earlier context, so it works after Ctrl-C with a fresh one, and a second
// call retries whatever the first could not remove.
func (c *dockerCluster) Close(ctx context.Context) error {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if c.closed {
		return nil
	}
	var errs []error
	if !c.logsSaved {
		err := c.eachNode(func(n *node) error {
			if n.ctr == nil {
				return nil
			}
			if err := c.saveLog(ctx, n); err != nil && !isNotFound(err) {
				return fmt.Errorf("save log of %s: %w", n.srv(), err)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
		c.logsSaved = err == nil // else the next call tries again
	}
	if c.stopWatch != nil {
		c.stopWatch()
		<-c.watchDone
		c.stopWatch = nil
	}
	err := c.eachNode(func(n *node) error {
		if n.ctr == nil {
			return nil
		}
		// No grace period: the logs are saved. Terminate stops, then
		// removes the container with its volumes; on a second call there
		// is nothing left to remove.
		err := n.ctr.Terminate(ctx, testcontainers.StopTimeout(0))
		if err == nil || isNotFound(err) {
			return nil
		}
		// Terminate gives up when the stop fails; a forced remove kills
		// whatever state the container is in.
		if _, rerr := c.cli.ContainerRemove(ctx, n.id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); rerr != nil && !isNotFound(rerr) {
			return fmt.Errorf("remove %s: %w", n.srv(), errors.Join(err, rerr))
		}
		return nil
	})
	removed := err == nil
	if err != nil {
		errs = append(errs, err)
	}
	// After the containers: a running one would keep a store's FUSE
	// connection in use (Close then detaches it).
	if err := c.closeStores(); err != nil {
		errs = append(errs, err)
	}
	if removed {
		if err := unpinText(c.text); err != nil {
			errs = append(errs, fmt.Errorf("remove the server's tmpfs copy: %w", err))
		}
	}
	if c.network != nil && removed {
		if err := c.network.Remove(ctx); err != nil && !isNotFound(err) {
			errs, removed = append(errs, fmt.Errorf("remove network %s: %w", c.netName, err)), false
		}
	}
	if removed {
		c.closed = true
		cluster.ReleasePorts(c.ports)
		c.cli.Close()
	}
	return errors.Join(errs...)
}
