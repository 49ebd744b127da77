package catchup

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// newCell prepares one catch-up cell on env's cluster (started per
// Options.ClusterConfig). Its times are ms on the history's clock, as the
// observer's readings and the fault windows are.
func newCell(opts Options, env *workloads.Env) *cell {
	c := env.Cluster
	t0 := time.Now()
	if env.History != nil {
		t0 = env.History.Start()
	}
	r := &cell{c: c, opts: opts, dir: env.Dir, say: env.Logf, phaseHook: env.Phase, t0: t0, obs: env.Observer, rec: opRecorder{env.History}}
	r.res = Result{Options: r.opts, Runtime: c.Runtime(), Cluster: c.Config(), Nodes: c.Nodes(),
		ServerVersion: c.Config().ServerVersion, GoMemLimit: c.Config().GoMemLimitFor(),
		StartedAt: r.t0, Dir: env.Dir, TargetRole: r.opts.Target}
	if r.res.ServerVersion == "" { // the local runtime runs the pinned default without saying so
		r.res.ServerVersion = serverbin.DefaultVersion()
	}
	r.res.Stream.Name, r.res.Stream.AllowDirect = r.opts.Stream, r.opts.DirectGet
	r.res.CatchUp.Bound = r.opts.CatchupTimeout
	return r
}

// cell is one catch-up cell in progress.
type cell struct {
	c         cluster.Cluster
	opts      Options
	dir       string
	say       func(format string, args ...any)
	phaseHook func(string)
	t0        time.Time
	res       Result

	obs    *observe.Observer // the pipeline's, sampling every node
	rec    opRecorder        // the pipeline's history
	admin  *nats.Conn
	js     jetstream.JetStream
	fleet  *fleet
	reader *reader
	target int
	asked  []observe.Event
	ph     phaseNow
	held   *nemesis.Held // the catch-up fault, from the kill to the restart

	phaseName  Phase
	phaseStart int64

	stateSeen cluster.NodeState // the target's last state that was read (lastState)
	recentLag []LagSample       // the last 2 s of the target's lag (lagBefore)

	liveStop func() // stops publishing at --rate and waits for in-flight acks
	readStop func()
	base     cluster.NodeState // the target's State right after its restart

	ackedAtRestart int64 // acknowledged bytes at the restart (CatchUp.PublishedBytes)
}

func (r *cell) logf(format string, args ...any) {
	if r.say != nil {
		r.say("catchup %6.1fs: %s", time.Since(r.t0).Seconds(), fmt.Sprintf(format, args...))
	}
}

func (r *cell) now() int64 { return time.Since(r.t0).Milliseconds() }

// phase closes the current phase and opens p ("" closes only).
func (r *cell) phase(p Phase) {
	now := r.now()
	if r.phaseName != "" {
		r.res.Phases = append(r.res.Phases, PhaseTime{Name: r.phaseName, StartMs: r.phaseStart, EndMs: now,
			Seconds: float64(now-r.phaseStart) / 1000})
	}
	r.phaseName, r.phaseStart = p, now
	if p != "" {
		r.ph.set(p)
		if r.phaseHook != nil {
			r.phaseHook(string(p))
		}
	}
}

func (r *cell) event(i int, kind observe.EventKind, detail string) {
	e := observe.Event{TMs: r.now(), Node: r.c.Nodes()[i].Name, Kind: kind, Detail: detail}
	r.asked = append(r.asked, e)
}

func (r *cell) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	r.res.Notes = append(r.res.Notes, s)
	r.logf("note: %s", s)
}

// setup creates the stream, picks the target and connects the publishers.
func (r *cell) setup(ctx context.Context) error {
	o := r.opts
	if err := o.Validate(len(r.c.Nodes())); err != nil {
		return err
	}
	if err := o.Refuse(r.c.Supports); err != nil {
		return err
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	if r.obs == nil {
		return errors.New("catchup: no observer of the nodes: the cell runs in the pipeline, which observes them (workloads.Env.Observer)")
	}
	r.checkConfig()
	r.logf("%s", o.Describe())
	r.phase(PhaseFill)
	if err := r.createStream(ctx); err != nil {
		return err
	}
	return r.connect()
}

// run fills, takes the target down (the scripted catch-up fault), restarts
// it (the fault's heal), waits until it is current and heals.
func (r *cell) run(ctx context.Context, faults *nemesis.Script) error {
	if err := r.fill(ctx); err != nil {
		return err
	}
	r.startLive(ctx)
	if err := r.takeDown(ctx, faults); err != nil {
		r.stopLive()
		r.heal(ctx)
		return err
	}
	r.phase(PhaseCatchup)
	if err := r.restart(ctx); err != nil {
		r.stopLive()
		r.heal(ctx)
		return err
	}
	r.waitCurrent(ctx)
	r.stopLive()
	if r.readStop != nil {
		r.readStop()
	}
	r.heal(ctx)
	return nil
}

// checkConfig notes where the cluster was not started as ClusterConfig
// says: the run goes on, and the record shows what really ran.
func (r *cell) checkConfig() {
	cfg := r.c.Config()
	want := r.opts.ClusterConfig(cfg)
	if got, w := cfg.GoMemLimitFor(), want.GoMemLimitFor(); got != w {
		r.note("the nodes run with GOMEMLIMIT %s, the --gomemlimit policy asks for %s (start the cluster with Options.ClusterConfig)", gml(got), gml(w))
	}
	if cfg.MemoryLimit > 0 {
		r.note("every node was started with a %s memory limit; the healthy nodes are limited too", bytesize.Bytes(cfg.MemoryLimit))
	}
	if !cfg.AutoRestart {
		r.note("the cluster has no AutoRestart: a node that dies stays down, so a crash loop cannot show")
	}
	if cfg.StoreOnTmpfs {
		r.note("stores are on tmpfs: they count against memory, which changes what is measured")
	}
	if cfg.MaxOutstandingCatchup != int64(r.opts.MaxOutstandingCatchup) {
		r.note("the nodes run with max_outstanding_catchup %s, not the %s asked", bytesize.Bytes(cfg.MaxOutstandingCatchup), r.opts.MaxOutstandingCatchup)
	}
}

func gml(b int64) string {
	if b <= 0 {
		return "unset"
	}
	return bytesize.Bytes(b).String()
}
