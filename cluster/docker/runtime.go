package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tcnetwork "github.com/testcontainers/testcontainers-go/network"
)

// Ports inside every container; the host sees client and monitor ports on
// 127.0.0.1, fixed per cluster. The cluster port stays on the private network.
const (
	clientPort  = 4222
	monitorPort = 8222
	routePort   = 6222
	confPath    = "/etc/nats/nats.conf"
	storeDir    = "/data"
)

// Runtime starts clusters of Docker containers. The zero value is ready.
type Runtime struct {
	// ReadyTimeout bounds Start's wait for every node to be healthy, routed
	// and agreed on a meta leader. Default 90 s.
	ReadyTimeout time.Duration
	// StopTimeout is how long Stop lets a node shut down before Docker
	// kills it. Default 30 s.
	StopTimeout time.Duration
}

var _ cluster.Runtime = (*Runtime)(nil)

// New returns a Runtime with default timeouts.
func New() *Runtime { return &Runtime{} }

// Name is "docker".
func (r *Runtime) Name() string { return "docker" }

// Supports says which controls are real; see supports.
func (r *Runtime) Supports(c cluster.Capability) error { return supports(c) }

// Start builds (or reuses) the node image, starts cfg.Nodes containers on a
// private network and waits until the cluster is ready. On failure it removes
// what it started and returns an error with the tail of the failing node's
// log; the logs are also saved in cfg.Dir/logs.
func (r *Runtime) Start(ctx context.Context, cfg cluster.Config) (cluster.Cluster, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Dir == "" {
		return nil, errors.New("docker runtime: the config has no Dir for node configs, stores and logs")
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	cfg.Dir = dir
	if cfg.ServerVersion == "" {
		cfg.ServerVersion = serverbin.DefaultVersion() // record what actually ran
	}
	cli, err := newClient()
	if err != nil {
		return nil, err
	}
	if err := ping(ctx, cli); err != nil {
		cli.Close()
		return nil, err
	}
	if err := tcCheck(); err != nil {
		cli.Close()
		return nil, err
	}
	tag, err := image(ctx, cli, cfg.ServerVersion)
	if err != nil {
		cli.Close()
		return nil, err
	}
	c := newCluster(cli, cfg, tag, r.StopTimeout)
	if server, err := serverbin.Path(ctx, cfg.ServerVersion); err == nil {
		// Without a tmpfs the nodes run the image's copy, as before.
		c.text, _ = pinText(server, c.id)
	}
	// Cleanup must run even when ctx was cancelled (Ctrl-C during start).
	cleanup := func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		c.Close(cctx)
	}
	if err := c.create(ctx); err != nil {
		cleanup()
		return nil, fmt.Errorf("docker cluster %s: %w", c.id, err)
	}
	ready := r.ReadyTimeout
	if ready <= 0 {
		ready = 90 * time.Second
	}
	if err := cluster.WaitReady(ctx, c, ready); err != nil {
		tail := c.failingTail(context.WithoutCancel(ctx), err)
		cleanup()
		return nil, fmt.Errorf("docker cluster %s: %v\n%s", c.id, err, tail)
	}
	return c, nil
}

func newCluster(cli *client.Client, cfg cluster.Config, tag string, stop time.Duration) *dockerCluster {
	if stop <= 0 {
		stop = 30 * time.Second
	}
	id := clusterID(cfg.RunID, randomHex(3))
	c := &dockerCluster{
		cli: cli, cfg: cfg, image: tag, id: id,
		stopTimeout: stop, oomKills: map[int]int{}, oomLife: map[int]bool{}, dial: cfg.ClientDial(),
	}
	for i := range cfg.Nodes {
		name := cluster.NodeName(i)
		n := &node{slot: name, container: "jschaos-" + id + "-" + name}
		n.server.Store(&name)
		if !cfg.StoreOnTmpfs {
			n.dataDir = filepath.Join(cfg.Dir, "data", name)
		}
		c.nodes = append(c.nodes, n)
	}
	return c
}

var unsafeName = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// clusterID names a cluster's network and containers: the run ID made safe
// for Docker names, plus a random suffix, so two clusters never collide.
func clusterID(runID, suffix string) string {
	s := strings.Trim(unsafeName.ReplaceAllString(runID, "-"), "-._")
	if len(s) > 24 {
		s = s[:24]
	}
	if s == "" {
		return suffix
	}
	return s + "-" + suffix
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (c *dockerCluster) labels(node string) map[string]string {
	l := map[string]string{LabelKey: runValue, labelOwner: selfOwner, labelRun: c.cfg.RunID, labelCluster: c.id}
	if node != "" {
		l[labelNode] = node
	}
	return l
}

// create makes the network and containers and starts them, both through
// testcontainers.
func (c *dockerCluster) create(ctx context.Context) error {
	ports, err := cluster.FreePorts(2 * len(c.nodes))
	c.ports = ports
	if err != nil {
		return err
	}
	for _, d := range []string{"config", "data", "logs"} {
		if err := os.MkdirAll(filepath.Join(c.cfg.Dir, d), 0o755); err != nil {
			return err
		}
	}
	if err := c.mountStores(); err != nil {
		return err
	}
	c.watchEvents() // before any container starts, so no oom event is missed
	// A bridge named by testcontainers (a random UUID: network.New takes no
	// name); the labels say whose it is.
	nw, err := tcnetwork.New(ctx, tcnetwork.WithDriver("bridge"), tcnetwork.WithLabels(c.labels("")))
	if err != nil {
		return fmt.Errorf("create network: %w", err)
	}
	c.network, c.netName = nw, nw.Name
	var routes []string
	for _, n := range c.nodes {
		routes = append(routes, fmt.Sprintf("%s:%d", n.slot, routePort))
	}
	for i, n := range c.nodes {
		n.clientPort, n.monitorPort = ports[2*i], ports[2*i+1]
	}
	// In parallel: each create and start is a few hundred ms of daemon work.
	return c.eachNode(func(n *node) error {
		if err := c.createNode(ctx, n, routes); err != nil {
			return fmt.Errorf("%s: %w", n.slot, err)
		}
		return nil
	})
}

// eachNode runs f on every node concurrently and joins the errors.
func (c *dockerCluster) eachNode(f func(*node) error) error {
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i, n := range c.nodes {
		wg.Go(func() { errs[i] = f(n) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (c *dockerCluster) createNode(ctx context.Context, n *node, routes []string) error {
	n.routes = routes
	confFile, err := c.writeConf(n)
	if err != nil {
		return err
	}
	binds := []string{confFile + ":" + confPath + ":ro"}
	var tmpfs map[string]string
	if n.dataDir != "" {
		if err := os.MkdirAll(n.dataDir, 0o755); err != nil {
			return err
		}
		binds = append(binds, n.dataDir+":"+storeDir)
	} else {
		// A tmpfs lives as long as the container runs: stopping or killing
		// the node loses its store, as Wipe would.
		tmpfs = map[string]string{storeDir: "mode=1777"}
	}
	env := map[string]string{}
	if g := c.cfg.GoMemLimitFor(); g > 0 {
		env["GOMEMLIMIT"] = fmt.Sprint(g)
	}
	published := [][2]int{{clientPort, n.clientPort}, {monitorPort, n.monitorPort}}
	var exposed []string // Docker 20.10 publishes only exposed ports
	for _, p := range published {
		exposed = append(exposed, fmt.Sprintf("%d/tcp", p[0]))
	}
	req := testcontainers.ContainerRequest{
		Name: n.container,
		// Our own local tag, never pulled: image() has just checked the
		// daemon has it, and testcontainers pulls only a missing tag.
		Image:           c.image,
		AlwaysPullImage: false,
		Cmd:             []string{"-c", confPath},
		Env:             env,
		Labels:          c.labels(n.slot),
		ExposedPorts:    exposed,
		Tmpfs:           tmpfs,
		Networks:        []string{c.netName},
		NetworkAliases:  map[string][]string{c.netName: {n.slot}},
		// No WaitingFor: Start waits for the whole cluster with
		// cluster.WaitReady (healthz, routes, meta leader).
		ConfigModifier: func(cfg *container.Config) {
			cfg.Hostname = n.slot
			// The caller's uid, so the store under Dir stays deletable by
			// the caller; netfault runs as root through exec.
			cfg.User = fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
			if c.text != "" {
				cfg.Entrypoint = []string{textMount + "/nats-server"}
			}
		},
		// Replaces testcontainers' default modifier, which would copy the
		// request's deprecated host fields: everything is set here.
		HostConfigModifier: func(hc *container.HostConfig) {
			hc.Binds = binds
			if c.text != "" {
				hc.Binds = append(hc.Binds, c.text+":"+textMount+":ro")
			}
			hc.NetworkMode = container.NetworkMode(c.netName)
			hc.CapAdd = []string{"NET_ADMIN"} // for netfault, run by exec as root
			// Fixed host ports on 127.0.0.1, so a restarted node keeps its
			// URLs (ports Docker picks change on restart).
			hc.PortBindings = network.PortMap{}
			for _, p := range published {
				cp, _ := network.PortFrom(uint16(p[0]), network.TCP)
				hc.PortBindings[cp] = []network.PortBinding{{HostIP: loopback, HostPort: fmt.Sprint(p[1])}}
			}
			if m := c.cfg.MemoryLimit; m > 0 {
				hc.Resources.Memory, hc.Resources.MemorySwap = m, m // equal: no swap
			}
			if c.cfg.AutoRestart {
				// Docker does not restart after docker kill or stop, only
				// after a death nobody asked for (OOM kill, crash);
				// RestartCount counts those.
				hc.RestartPolicy = container.RestartPolicy{Name: container.RestartPolicyOnFailure}
			}
		},
	}
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: req, Started: true, Logger: quiet,
	})
	if ctr != nil { // also on a failed start: Close must remove it
		n.ctr, n.id = ctr, ctr.GetContainerID()
	}
	if err == nil {
		c.rememberPid(ctx, n)
	}
	return err
}

// writeConf renders node n's config under its current server_name into
// Dir/config/<slot>.conf, which the container has bind-mounted: the file is
// rewritten in place (same inode), so a rename shows at the next start.
// Saved under Dir: the rendered configs are part of the run's record.
func (c *dockerCluster) writeConf(n *node) (string, error) {
	conf := c.cfg.Render(cluster.ServerConf{
		Name: n.srv(), ClientPort: clientPort, MonitorPort: monitorPort, ClusterPort: routePort,
		Routes: n.routes, StoreDir: storeDir,
	})
	confFile := filepath.Join(c.cfg.Dir, "config", n.slot+".conf")
	return confFile, os.WriteFile(confFile, []byte(conf), 0o644)
}

// failingTail is the end of the log of the node most likely to blame for
// err: one that is not running, else the one err names, else n1.
func (c *dockerCluster) failingTail(ctx context.Context, err error) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	pick := -1
	for i, n := range c.nodes {
		if n.ctr == nil {
			continue
		}
		if st, ierr := c.inspect(ctx, n); ierr == nil && !st.State.Running {
			pick = i
			break
		}
	}
	if pick < 0 {
		pick = 0
		if m := regexp.MustCompile(`\bn(\d+):`).FindStringSubmatch(err.Error()); m != nil {
			fmt.Sscan(m[1], &pick)
			pick--
		}
	}
	if pick < 0 || pick >= len(c.nodes) || c.nodes[pick].id == "" {
		return ""
	}
	tail, terr := c.logTail(ctx, c.nodes[pick].id, 20)
	if terr != nil {
		return fmt.Sprintf("(no log of %s: %v)", c.nodes[pick].slot, terr)
	}
	return fmt.Sprintf("last lines of %s's log:\n%s", c.nodes[pick].slot, tail)
}
