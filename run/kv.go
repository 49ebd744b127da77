package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// cleanupTimeout bounds teardown, which runs on a fresh context so that it
// still happens after Ctrl-C.
const cleanupTimeout = 60 * time.Second

// runKVCell runs one kv-update cell. Everything it learns is in the result;
// a harness failure is recorded there too, and whatever history was written
// stays on disk.
func (r *runner) runKVCell(ctx context.Context, cell Cell, dir string) (res CellResult) {
	res = CellResult{Cell: cell, Label: cell.Label(), Dir: dir, Runtime: r.rt.Name(), StartedAt: time.Now(), Verdict: Error}
	fail := func(format string, args ...any) CellResult {
		res.Error = fmt.Sprintf(format, args...)
		res.Verdict = Error
		return res
	}
	faults, err := nemesis.Parse(cell.Nemesis)
	if err != nil {
		return fail("%v", err)
	}

	cfg := r.spec.Cluster
	cfg.ServerVersion, cfg.Dir, cfg.RunID = cell.ServerVersion, dir, r.id
	cfg.PowerLossStore = cfg.PowerLossStore || nemesis.NeedsPowerLossStore(faults) // the FUSE store power-loss faults act on
	res.Cluster = cfg
	prog := newProgress(r.out, cell.Name, r.spec.TimeLimit)

	t := time.Now()
	prog.setPhase("starting cluster")
	c, err := r.rt.Start(ctx, cfg)
	if err != nil {
		return fail("start cluster: %v", err)
	}
	defer r.teardown(c, &res)
	res.Nodes = c.Nodes()
	res.phase("cluster_start", t)

	opts := cell.Workload
	opts.DirectGet, opts.Seed = cell.DirectGet, r.spec.Seed
	res.KV = opts
	t = time.Now()
	w, err := kvupdate.Setup(ctx, c.Nodes(), opts)
	if err != nil {
		return fail("set up bucket: %v", err)
	}
	defer w.Close()
	res.phase("setup", t)

	rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		return fail("%v", err)
	}
	defer rec.Close()

	env := &nemesis.Env{Cluster: c, JS: w.JetStream(), Stream: w.StreamName(), Logf: r.logf}
	sched := nemesis.Schedule{Faults: faults, Interval: r.spec.NemesisInterval, Seed: r.spec.Seed}

	// The workload and the nemesis share one deadline; the nemesis heals
	// whatever is active when it passes.
	t = time.Now()
	prog.setPhase("workload")
	prog.track(&w.Stats)
	runCtx, cancel := context.WithTimeout(ctx, r.spec.TimeLimit)
	windows := make(chan []nemesis.Window, 1)
	go func() { windows <- sched.Run(runCtx, env, rec) }()
	werr := w.Run(runCtx, rec)
	cancel()
	res.Faults = <-windows
	prog.untrack()
	res.phase("workload", t)
	_ = rec.Flush()
	if werr != nil {
		return fail("workload: %v", werr)
	}

	// Heal is done; wait for recovery on a fresh bound even if interrupted,
	// so the stream read-back has a chance.
	t = time.Now()
	prog.setPhase("waiting for recovery")
	recovery := nemesis.WaitRecovered(context.WithoutCancel(ctx), env, r.spec.RecoveryTimeout)
	res.Recovery = &recovery
	res.phase("recovery", t)

	if ctx.Err() == nil {
		prog.setPhase("final reads")
		if err := w.FinalReads(ctx, rec); err != nil {
			r.logf("final reads: %v", err)
		}
	}
	prog.setPhase("reading the stream back")
	entries, complete, err := w.ReadStream(context.WithoutCancel(ctx), 15*time.Second)
	if err != nil {
		r.logf("read stream: %v", err)
	}
	res.Stream.Entries, res.Stream.Complete = len(entries), complete && err == nil
	if err := history.WriteStream(filepath.Join(dir, "stream.jsonl"), entries, res.Stream.Complete); err != nil {
		return fail("write stream: %v", err)
	}
	if err := rec.Close(); err != nil {
		return fail("write history: %v", err)
	}
	res.Ops = CountOps(rec.Ops(), time.Duration(res.Phases["workload"]*float64(time.Second)))
	if ctx.Err() != nil {
		return fail("interrupted; the partial history is in %s (check it with: chaos check %s)", dir, dir)
	}

	t = time.Now()
	prog.setPhase("checking")
	h := history.History{Ops: rec.Ops(), Stream: entries, StreamComplete: res.Stream.Complete}
	res.Checks = append(checker.Run(h, checker.All(r.checkOptions(dir))), recoveryCheck(recovery))
	res.Verdict = VerdictOf(res.Checks)
	res.phase("check", t)
	return res
}

func (r *runner) checkOptions(dir string) checker.Options {
	return checker.Options{OutDir: filepath.Join(dir, "porcupine"), Timeout: r.spec.CheckTimeout}
}

// teardown closes the cluster (which saves node logs) on a fresh context and
// drops the node stores unless asked to keep them: they can be large, and
// the history, stream and logs are what a person needs.
func (r *runner) teardown(c cluster.Cluster, res *CellResult) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	t := time.Now()
	if err := c.Close(ctx); err != nil {
		r.logf("teardown: %v", err)
	}
	if !r.spec.KeepData {
		_ = os.RemoveAll(filepath.Join(res.Dir, "data"))
	}
	res.phase("teardown", t)
}
