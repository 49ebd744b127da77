// Package external is the runtime of a cluster the toolkit did not start
// (--runtime external): a staging cluster on Kubernetes, a compose cluster,
// one started by `chaos cluster up --detach`.
//
// Start connects: every server answers, its /varz names it, the client URL
// and the monitoring URL of a node reach the same server, the cluster is
// ready, and none of the run's streams exists yet. Close deletes the
// streams the run created and never stops a server. Every control of
// cluster.Cluster runs the user's hook for it (see Hooks): kill, stop,
// start, pause, resume, wipe, partition, heal. A control without a hook is
// refused by Supports, so a fault that needs it is refused before the run
// starts. State is what the node's monitoring endpoint shows, since there
// is no runtime to ask: an answer is running, a refused connection is not
// running, silence is paused when the run paused it.
package external

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Name is what --runtime takes.
const Name = "external"

// Runtime connects to a running cluster. Make it with New.
type Runtime struct {
	o     Options
	dial  *cluster.Dial
	names []string // server names; nil until Survey

	mu      sync.Mutex
	touched map[string]bool // streams a cell of this run may have created
}

var _ cluster.Runtime = (*Runtime)(nil)

// New checks the options; it opens no connection.
func New(o Options) (*Runtime, error) {
	o = o.withDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	d, err := o.Auth.dial()
	if err != nil {
		return nil, err
	}
	return &Runtime{o: o, dial: d, touched: map[string]bool{}}, nil
}

// Name is "external".
func (r *Runtime) Name() string { return Name }

// needs are the hooks each capability runs: the control and its heal.
var needs = map[cluster.Capability][]string{
	cluster.CapKill:      {"kill", "start"},
	cluster.CapStop:      {"stop", "start"},
	cluster.CapPause:     {"pause", "resume"},
	cluster.CapWipe:      {"wipe"},
	cluster.CapPartition: {"partition", "heal"},
}

// Supports is nil when every hook the capability runs was given.
func (r *Runtime) Supports(c cluster.Capability) error {
	switch c {
	case cluster.CapMemoryLimit:
		return cluster.Unsupported(Name, c, "the memory limits of a cluster the toolkit did not start are not the run's to change")
	case cluster.CapLatency, cluster.CapLoss, cluster.CapBandwidth:
		return cluster.Unsupported(Name, c, "there is no hook for network shaping")
	case cluster.CapStoreFiles:
		return cluster.Unsupported(Name, c, "the servers' stores are not on this machine")
	case cluster.CapRename:
		return cluster.Unsupported(Name, c, "the toolkit cannot restart a server it did not start under a new name")
	case cluster.CapPowerLoss:
		return cluster.Unsupported(Name, c, "the servers' stores are not on a layer this machine can roll back")
	case cluster.CapLogs:
		return cluster.Unsupported(Name, c, "the servers' logs are not on this machine: log triggers cannot be followed (events from the monitoring endpoints can)")
	}
	hooks, ok := needs[c]
	if !ok {
		return cluster.Unsupported(Name, c, "unknown capability")
	}
	for i, h := range hooks {
		if r.o.Hooks[h] == "" {
			why := fmt.Sprintf("no --fault-hook %s given", h)
			if i > 0 {
				why += fmt.Sprintf(" (the heal of --fault-hook %s runs it)", hooks[0])
			}
			return cluster.Unsupported(Name, c, why)
		}
	}
	return nil
}

// Streams are the streams the run may create.
func (r *Runtime) Streams() []Stream { return append([]Stream(nil), r.o.Streams...) }

// Survey connects to every server and describes it: the server name from
// /varz (it must match --node-names when given), the same name from the
// client URL of that node, version and config digest; then it waits until
// the cluster is ready. A mismatch is ErrRefused.
func (r *Runtime) Survey(ctx context.Context) (*cluster.External, error) {
	o := r.o
	ext := &cluster.External{Auth: r.dial.String(), Hooks: map[string]string{}, ConnectTimeout: o.ConnectTimeout, HookTimeout: o.HookTimeout}
	for h, t := range o.Hooks {
		ext.Hooks[h] = t
	}
	for _, s := range o.Streams {
		ext.Streams = append(ext.Streams, s.Name)
	}
	names := make([]string, len(o.Servers))
	for i := range o.Servers {
		s, err := r.surveyOne(ctx, i)
		if err != nil {
			return nil, err
		}
		for j := range i {
			if names[j] == s.Name {
				return nil, refuse("--monitor %s and %s both reach server %s: give each node's own URL", o.Monitors[j], o.Monitors[i], s.Name)
			}
		}
		names[i] = s.Name
		ext.Servers = append(ext.Servers, s)
	}
	if err := waitReady(ctx, names, o.Monitors, o.ProbeTimeout, o.ConnectTimeout); err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.names = names
	r.mu.Unlock()
	return ext, nil
}

func (r *Runtime) surveyOne(ctx context.Context, i int) (cluster.ExternalServer, error) {
	o := r.o
	v, err := cluster.Monitor{Timeout: o.ConnectTimeout}.Varz(ctx, cluster.Node{MonitorURL: o.Monitors[i]})
	if err != nil {
		return cluster.ExternalServer{}, fmt.Errorf("--monitor %s: %v", o.Monitors[i], err)
	}
	switch {
	case !safeName.MatchString(v.ServerName):
		return cluster.ExternalServer{}, refuse("--monitor %s reports server name %q; hooks need names of letters, digits, '.', '_' and '-'", o.Monitors[i], v.ServerName)
	case len(o.NodeNames) > 0 && o.NodeNames[i] != v.ServerName:
		return cluster.ExternalServer{}, refuse("--node-names says node %d is %s but --monitor %s reports %s", i+1, o.NodeNames[i], o.Monitors[i], v.ServerName)
	}
	nc, err := r.connect(ctx, "chaos-survey", []cluster.Node{{ClientURL: o.Servers[i], Dial: r.dial}}, nil)
	if err != nil {
		return cluster.ExternalServer{}, err
	}
	got := nc.ConnectedServerName()
	nc.Close()
	if got != v.ServerName {
		return cluster.ExternalServer{}, refuse("--server %s is server %s but --monitor %s is %s: give both lists in the same order", o.Servers[i], got, o.Monitors[i], v.ServerName)
	}
	return cluster.ExternalServer{Name: v.ServerName, ClientURL: o.Servers[i], MonitorURL: o.Monitors[i], Version: v.Version,
		GitCommit: v.GitCommit, ConfigDigest: v.ConfigDigest, Cluster: v.Cluster.Name, Start: v.Start}, nil
}

// connect dials nodes in order with the run's credentials (client.Connect),
// within --connect-timeout and never again once it drops: a probe, not a
// workload's client. Authentication failures are ErrRefused.
func (r *Runtime) connect(ctx context.Context, name string, nodes []cluster.Node, errs nats.ErrHandler) (*nats.Conn, error) {
	timeout := r.o.ConnectTimeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < timeout {
		timeout = time.Until(d)
	}
	opts := []nats.Option{nats.Timeout(timeout), nats.MaxReconnects(0)}
	if errs != nil {
		opts = append(opts, nats.ErrorHandler(errs))
	}
	nc, err := client.Connect(nodes, client.Order(0, len(nodes)), name, opts...)
	urls := make([]string, len(nodes))
	for i, n := range nodes {
		urls[i] = n.ClientURL
	}
	switch {
	case errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired), errors.Is(err, nats.ErrAuthRevoked):
		return nil, refuse("--server %s: %v: check --creds, --nkey or --user/--password", strings.Join(urls, ","), err)
	case err != nil:
		return nil, fmt.Errorf("--server %s: %v", strings.Join(urls, ","), err)
	}
	return nc, nil
}

// nodes are the cluster's nodes in --server order.
func (r *Runtime) nodes() []cluster.Node {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]cluster.Node, len(r.o.Servers))
	for i := range out {
		out[i] = cluster.Node{Name: r.names[i], ClientURL: r.o.Servers[i], MonitorURL: r.o.Monitors[i], Dial: r.dial}
	}
	return out
}

// Start connects for one cell: Survey (again: servers may have been
// replaced since), then checks that none of the run's streams exists. A
// stream that a previous cell of this run left behind (its delete failed)
// is deleted first; one the run never had is ErrRefused.
func (r *Runtime) Start(ctx context.Context, cfg cluster.Config) (cluster.Cluster, error) {
	cfg = cfg.WithDefaults()
	if cfg.Nodes != len(r.o.Servers) {
		return nil, fmt.Errorf("the cell asks for %d nodes; --server gives %d", cfg.Nodes, len(r.o.Servers))
	}
	ext, err := r.Survey(ctx)
	if err != nil {
		return nil, err
	}
	cfg.External = ext
	nodes := r.nodes()
	c := newCluster(r, cfg, nodes)
	if err := r.claimStreams(ctx, nodes); err != nil {
		c.closeLog()
		return nil, err
	}
	return c, nil
}

// claimStreams checks that none of the run's streams exists, deleting
// those a previous cell of this run left, and marks them all as the run's.
func (r *Runtime) claimStreams(ctx context.Context, nodes []cluster.Node) error {
	nc, js, err := r.admin(ctx, nodes)
	if err != nil {
		return err
	}
	defer nc.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.o.Streams {
		exists, err := streamExists(ctx, js, s.Name, r.o.ConnectTimeout)
		switch {
		case err != nil:
			return err
		case exists && !r.touched[s.Name]:
			return refuse("stream %s already exists and is not this run's: the run never touches streams it did not create (pick another --name-prefix)", s.Name)
		case exists:
			if err := deleteStream(ctx, js, s.Name, r.o.ConnectTimeout); err != nil {
				return fmt.Errorf("stream %s, left by an earlier cell of this run: %v", s.Name, err)
			}
		}
		r.touched[s.Name] = true
	}
	return nil
}

// Cleanup deletes whatever of the run's streams is still there (a cell's
// Close does it too; this is the last try, at the end of the run).
func (r *Runtime) Cleanup(ctx context.Context) error {
	r.mu.Lock()
	ready := r.names != nil
	r.mu.Unlock()
	if !ready {
		return nil // never connected: nothing can have been created
	}
	return r.deleteOwn(ctx, r.nodes())
}

// deleteOwn deletes every stream of the run that exists and was claimed.
func (r *Runtime) deleteOwn(ctx context.Context, nodes []cluster.Node) error {
	nc, js, err := r.admin(ctx, nodes)
	if err != nil {
		return fmt.Errorf("delete the run's streams: %v", err)
	}
	defer nc.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	var left []string
	for _, s := range r.o.Streams {
		if !r.touched[s.Name] {
			continue
		}
		if err := deleteStream(ctx, js, s.Name, r.o.ConnectTimeout); err != nil {
			left = append(left, fmt.Sprintf("%s (%v)", s.Name, err))
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("the run's streams are left in the cluster, delete them by hand (nats stream rm NAME): %s", strings.Join(left, ", "))
	}
	return nil
}

func (r *Runtime) admin(ctx context.Context, nodes []cluster.Node) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := r.connect(ctx, "chaos-admin", nodes, nil)
	if err != nil {
		return nil, nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

func streamExists(ctx context.Context, js jetstream.JetStream, name string, timeout time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := js.Stream(ctx, name)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("stream %s info: %v", name, err)
	}
	return true, nil
}

// deleteStream deletes name if it exists and checks that it is gone. Right
// after a delete, a clustered stream's info request can go unanswered for
// a moment (nobody owns the stream any more), so the check asks again, a
// few seconds at a time, until the bound.
func deleteStream(ctx context.Context, js jetstream.JetStream, name string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) && ctx.Err() == nil {
		step := min(5*time.Second, time.Until(deadline))
		dctx, cancel := context.WithTimeout(ctx, step)
		err := js.DeleteStream(dctx, name)
		cancel()
		if err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
			last = err
			continue
		}
		exists, err := streamExists(ctx, js, name, step)
		switch {
		case err != nil:
			last = err
		case exists:
			last = errors.New("still there after the delete")
		default:
			return nil
		}
	}
	if last == nil {
		last = ctx.Err()
	}
	return last
}
