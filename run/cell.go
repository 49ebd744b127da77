package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// cleanupTimeout bounds teardown, which runs on a fresh context so that it
// still happens after Ctrl-C.
const cleanupTimeout = 2 * time.Minute

// cellRun is one cell in progress.
type cellRun struct {
	r        *runner
	res      *record.CellResult
	w        workloads.Workload
	settings workloads.Settings
	plan     workloads.Plan
	// stream is the cell's first stream, the one faults aim at
	// (partition-leader, stepdown) and the recovery wait waits for; admin
	// and js are the pipeline's connection for them.
	stream string
	admin  *nats.Conn
	js     jetstream.JetStream
	faults []nemesis.Fault
	prog   *progress
	c      cluster.Cluster
	rec    *history.Recorder
	ops    *liveOps
	inst   workloads.Instance
	online workloads.LiveChecker
	obs    *observe.Observer // every node, from before setup to before teardown
}

// runCell runs one cell of any workload. Everything it learns is in the
// result; a harness failure is recorded there too, and whatever history
// was written stays on disk.
func (r *runner) runCell(ctx context.Context, cell record.Cell, dir string) (res record.CellResult) {
	res = record.CellResult{Cell: cell, Workload: r.spec.Workload, Label: r.label(cell), Dir: dir, Runtime: r.rt.Name(), StartedAt: time.Now(), Verdict: record.Error}
	cr := &cellRun{r: r, res: &res}
	defer cr.teardown()
	if err := cr.start(ctx, cell, dir); err != nil {
		res.Error = err.Error()
		return res
	}
	werr := cr.drive(ctx, cell)
	cr.finish(ctx)
	cr.teardown()
	switch {
	case werr != nil:
		res.Error = "workload: " + werr.Error()
		return res
	case res.Error != "":
		return res
	}
	if ctx.Err() != nil {
		res.Error = fmt.Sprintf("interrupted; the partial history is in %s (check it with: chaos check %s)", dir, dir)
		return res
	}
	cr.judge(dir)
	return res
}

func (r *runner) label(cell record.Cell) string {
	w, err := workloads.Get(r.spec.Workload)
	if err != nil {
		return cell.Label()
	}
	s, err := w.Decode(cell.Settings)
	if err != nil {
		return cell.Label()
	}
	if p := s.Plan(r.spec.Cluster).Label; p != "" {
		return p + ", " + cell.Label()
	}
	return cell.Label()
}

// start decodes the cell, starts its cluster and sets the workload up.
func (cr *cellRun) start(ctx context.Context, cell record.Cell, dir string) error {
	r := cr.r
	var err error
	if cr.w, err = workloads.Get(r.spec.Workload); err != nil {
		return err
	}
	if cr.settings, err = cr.w.Decode(cell.Settings); err != nil {
		return err
	}
	if cr.faults, err = nemesis.Parse(cell.Nemesis); err != nil {
		return err
	}
	cfg := r.spec.Cluster
	cfg.ServerVersion, cfg.Dir, cfg.RunID = cell.ServerVersion, dir, r.id
	cr.plan = cr.settings.Plan(cfg)
	if cr.plan.AimLeader {
		cr.faults = nemesis.AimAt(cr.faults, nemesis.RoleLeader)
	}
	cfg = cr.plan.Cluster
	cfg.PowerLossStore = cfg.PowerLossStore || nemesis.NeedsPowerLossStore(cr.faults) // the FUSE store power-loss faults act on
	cr.res.Cluster = cfg
	cr.prog = newProgress(r.out, cell.Name, r.spec.TimeLimit, r.dir)
	t := time.Now()
	cr.prog.setPhase("starting cluster")
	if cr.c, err = r.rt.Start(ctx, cfg); err != nil {
		return fmt.Errorf("start cluster: %w", err)
	}
	cr.res.Nodes = cr.c.Nodes()
	setPhase(cr.res, "cluster_start", t)
	if cr.rec, err = history.NewRecorder(filepath.Join(dir, "history.jsonl")); err != nil {
		return err
	}
	cr.res.HistoryStart = cr.rec.Start()
	// Ops go to disk, the counters and the online checks; the checkers read
	// the file, so the harness does not grow with the run.
	cr.rec.Stream()
	cr.ops = newLiveOps()
	cr.rec.Watch(cr.ops.add)
	// The nodes are observed through the heal and the workload's finish,
	// even after Ctrl-C; teardown stops the observer.
	every := cr.plan.SampleEvery
	if cr.obs, err = observe.Start(context.WithoutCancel(ctx), observe.Options{Cluster: cr.c, Path: filepath.Join(dir, observe.File),
		Now: cr.rec.Now, Every: every, Monitor: cluster.Monitor{Timeout: cfg.ProbeTimeout}}); err != nil {
		return fmt.Errorf("observe the nodes: %w", err)
	}
	t = time.Now()
	cr.prog.setPhase("setup")
	env := &workloads.Env{Cluster: cr.c, Dir: dir, DirectGet: cell.DirectGet, Seed: cell.SeedOr(r.spec.Seed), History: cr.rec,
		Observer: cr.obs, Phase: cr.prog.setPhase, Logf: cr.prog.logf(r.logf),
		OnReadBack: func(entries int, complete bool) { cr.res.Stream.Entries, cr.res.Stream.Complete = entries, complete }}
	if cr.inst, err = cr.settings.Setup(ctx, env); err != nil {
		return fmt.Errorf("set up %s: %w", r.spec.Workload, err)
	}
	if len(cr.plan.Streams) > 0 {
		cr.stream = cr.plan.Streams[0].Name
	}
	// The faults' and the recovery wait's own connection, with the
	// cluster's credentials like every client's.
	if cr.admin, err = client.Connect(cr.c.Nodes(), client.Order(0, len(cr.c.Nodes())), "chaos-nemesis"); err != nil {
		return fmt.Errorf("connect the nemesis: %w", err)
	}
	if cr.js, err = jetstream.New(cr.admin); err != nil {
		return fmt.Errorf("connect the nemesis: %w", err)
	}
	cr.obs.Follow(cr.stream)
	setPhase(cr.res, "setup", t)
	return nil
}

// drive runs the workload while the nemesis schedule runs, then waits for
// recovery. A timed workload and the schedule share one deadline; the
// schedule heals whatever is in effect when the workload is over.
func (cr *cellRun) drive(ctx context.Context, cell record.Cell) error {
	r := cr.r
	env := &nemesis.Env{Cluster: cr.c, JS: cr.js, Stream: cr.stream, Logf: cr.prog.logf(r.logf),
		VerifyWithin: cr.res.Cluster.FaultVerifyTimeout, ProbeTimeout: cr.res.Cluster.ProbeTimeout}
	sched := nemesis.Schedule{Faults: cr.faults, Interval: r.spec.NemesisInterval, Seed: cell.SeedOr(r.spec.Seed), OnChange: cr.prog.setFault}
	script := &nemesis.Script{Env: env, Rec: cr.rec, OnChange: cr.prog.setFault}
	t := time.Now()
	cr.prog.setPhase("workload")
	var runCtx context.Context
	var cancel context.CancelFunc
	if cr.plan.Timed {
		runCtx, cancel = context.WithTimeout(ctx, r.spec.TimeLimit)
	} else {
		runCtx, cancel = context.WithCancel(ctx)
	}
	start, stopped := cr.watch(runCtx, cancel)
	cr.prog.track(cr.ops.counts, cr.plan.Timed)
	stopWatch := cr.watchCluster(ctx, env)
	windows := make(chan []nemesis.Window, 1)
	go func() { windows <- sched.Run(runCtx, env, cr.rec) }()
	werr := cr.inst.Run(runCtx, script)
	cancel()
	cr.settleOnline(start, stopped)
	cr.res.Faults = sortWindows(append(<-windows, script.Windows()...))
	stopWatch()
	cr.prog.untrack()
	setPhase(cr.res, "workload", t)
	_ = cr.rec.Flush()

	// Wait for recovery on a fresh bound even if interrupted, so the
	// workload's read-back has a chance.
	t = time.Now()
	cr.prog.setPhase("waiting for recovery")
	recovery := nemesis.WaitRecovered(context.WithoutCancel(ctx), env, cr.recoveryBound())
	cr.res.Recovery = &recovery
	setPhase(cr.res, "recovery", t)
	return werr
}

// watchCluster starts the cluster's watcher when the faults need one
// (triggers, or roles such as old-leader), for env.Watch. The returned
// func stops it and stores what it saw: every event in events.jsonl, the
// counts and notes in the result.
func (cr *cellRun) watchCluster(ctx context.Context, env *nemesis.Env) func() {
	if !nemesis.NeedsWatch(cr.faults) {
		return func() {}
	}
	wctx, cancel := context.WithCancel(ctx)
	start := cr.rec.Start()
	w := watch.Start(wctx, watch.Options{Cluster: cr.c, Stream: cr.stream, Patterns: nemesis.LogPatterns(cr.faults),
		Since: func(t time.Time) time.Duration { return t.Sub(start) }, DueLead: nemesis.DueLead(cr.faults)})
	env.Watch = w
	// Roles read the state the first poll sets; a run that cannot poll
	// still runs, its roles saying they name nobody.
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	_ = w.Ready(rctx)
	rcancel()
	return func() {
		cancel()
		w.Wait()
		evs := w.Events()
		sum := &record.WatchSummary{Events: map[string]int{}, Notes: w.Notes()}
		for _, e := range evs {
			sum.Events[string(e.Kind)]++
		}
		cr.res.Watch = sum
		if err := watch.WriteEvents(filepath.Join(cr.res.Dir, watch.EventsFile), evs); err != nil {
			cr.res.Error = "write events: " + err.Error()
		}
	}
}

// watch feeds the online checks, when the workload has them, and with
// --stop-on-anomaly cancels the workload once they find one. It returns
// the history time of the workload's start and whether it stopped it.
func (cr *cellRun) watch(ctx context.Context, cancel context.CancelFunc) (int64, func() bool) {
	start := cr.rec.Now()
	w, ok := cr.inst.(workloads.Watcher)
	if !ok {
		return start, func() bool { return false }
	}
	cr.online = w.Live()
	cr.rec.Watch(cr.online.Add)
	cr.prog.watchOnline(cr.online)
	if !cr.r.spec.StopOnAnomaly {
		return start, func() bool { return false }
	}
	var mu sync.Mutex
	hit := false
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if cr.online.Tally().First != nil {
					mu.Lock()
					hit = true
					mu.Unlock()
					cr.r.logf("--stop-on-anomaly: the online checks found an anomaly; stopping the workload")
					cancel()
					return
				}
			}
		}
	}()
	return start, func() bool { mu.Lock(); defer mu.Unlock(); return hit }
}

// settleOnline judges what the online checks still hold and records them.
func (cr *cellRun) settleOnline(start int64, stopped func() bool) {
	if cr.online == nil {
		return
	}
	cr.online.Flush()
	o := cr.online.Tally()
	o.Stopped = stopped()
	if o.First != nil {
		o.FirstAfter = time.Duration(o.First.Op.Complete - start)
	}
	cr.res.Online = &o
}

func (cr *cellRun) recoveryBound() time.Duration {
	if d := cr.r.spec.RecoveryTimeout; d > 0 {
		return d
	}
	if b := cr.plan.RecoveryBound; b > 0 {
		return b
	}
	return DefaultRecoveryTimeout
}

// finish lets the workload read back and closes the history.
func (cr *cellRun) finish(ctx context.Context) {
	t := time.Now()
	if err := cr.inst.Finish(ctx); err != nil {
		cr.r.logf("finish: %v", err)
		cr.res.Error = fmt.Sprintf("finish: %v (what was stored is in %s; check it with: chaos check %s)", err, cr.res.Dir, cr.res.Dir)
	}
	if err := cr.rec.Close(); err != nil && cr.res.Error == "" {
		cr.res.Error = "write history: " + err.Error()
	}
	cr.res.Ops = cr.ops.counts().Rated(time.Duration(cr.res.Phases["workload"] * float64(time.Second)))
	setPhase(cr.res, "finish", t)
}

// teardown closes the workload and the cluster (which saves node logs) on
// a fresh context, and drops the node stores unless asked to keep them:
// they can be large, and the history, files and logs are what a person
// needs. It runs once.
func (cr *cellRun) teardown() {
	if cr.c == nil {
		return
	}
	c := cr.c
	cr.c = nil
	if cr.obs != nil {
		if err := cr.obs.Stop(); err != nil && cr.res.Error == "" {
			cr.res.Error = "write " + observe.File + ": " + err.Error()
		}
	}
	if cr.inst != nil {
		cr.inst.Close()
	}
	if cr.admin != nil {
		cr.admin.Close()
	}
	if cr.rec != nil {
		_ = cr.rec.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	t := time.Now()
	if err := c.Close(ctx); err != nil {
		cr.r.logf("teardown: %v", err)
	}
	if !cr.r.spec.KeepData {
		_ = os.RemoveAll(filepath.Join(cr.res.Dir, "data"))
	}
	setPhase(cr.res, "teardown", t)
}

// judge runs the workload's checkers on the stored cell, as chaos check
// does, and adds the recovery check.
func (cr *cellRun) judge(dir string) {
	t := time.Now()
	cr.prog.setPhase("checking")
	checks, err := CheckCell(dir, cr.w, cr.res.Recovery, checker.Options{Timeout: cr.r.spec.CheckTimeout})
	if err != nil {
		cr.res.Error = "check: " + err.Error()
		return
	}
	cr.res.Checks = checks
	cr.res.Verdict = record.VerdictOf(checks)
	if s, ok := cr.w.(workloads.CellSummarizer); ok {
		cr.res.Summary, _ = s.Summary(dir)
	}
	setPhase(cr.res, "check", t)
	// finding.md, a bug report per anomaly class; it cannot change the verdict.
	if _, err := findings.WriteResult(dir, *cr.res); err != nil {
		cr.r.logf("write %s: %v", findings.FileName, err)
	}
}

// CheckCell judges a stored cell: the workload's checkers over its files,
// plus the recovery check when the wait for recovery was recorded, and
// the nodes' health (node-health) when the pipeline observed them.
func CheckCell(dir string, w workloads.Workload, rec *nemesis.Recovery, opts checker.Options) ([]checker.Result, error) {
	if opts.OutDir == "" {
		opts.OutDir = filepath.Join(dir, "porcupine")
	}
	checks, err := checkGuarded(dir, w, opts)
	if err != nil {
		return nil, err
	}
	if rec != nil {
		var unhealed []string
		if !rec.Recovered {
			if unhealed, err = unhealedFaults(filepath.Join(dir, "history.jsonl")); err != nil {
				unhealed = []string{"the fault windows could not be read: " + err.Error()}
			}
		}
		checks = append(checks, recoveryCheck(*rec, unhealed))
	}
	health, err := observe.Check(dir)
	if err != nil {
		return nil, err
	}
	if health != nil {
		checks = append(checks, *health)
	}
	return checks, nil
}

// checkGuarded is w.Check, with a panic outside any one check (reading
// the cell's files, say) returned as an error naming it: a harness error,
// never a verdict. The checks themselves run under checker.Guard.
func checkGuarded(dir string, w workloads.Workload, opts checker.Options) (checks []checker.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "%s checks panicked: %v\n%s", w.Name(), p, debug.Stack())
			checks, err = nil, fmt.Errorf("%s checks panicked (a bug of the toolkit): %v", w.Name(), p)
		}
	}()
	return w.Check(dir, opts)
}

func sortWindows(ws []nemesis.Window) []nemesis.Window {
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Start < ws[j].Start })
	return ws
}
