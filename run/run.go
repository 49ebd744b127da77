package run

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

type runner struct {
	spec record.Spec
	rt   cluster.Runtime
	id   string
	dir  string
	out  *os.File
	logf func(string, ...any)
	// cell runs one cell: runCell, or a test's stand-in.
	cell func(ctx context.Context, c record.Cell, dir string) record.CellResult
}

// Validate checks a spec before anything starts; errors are one line and
// mean a usage error.
func Validate(s record.Spec) error {
	ss, err := settingsOf(s)
	if err != nil {
		return err
	}
	if len(ss) == 0 {
		return fmt.Errorf("empty matrix: the workload flags need a value")
	}
	if ss[0].Plan(s.Cluster).Timed && s.TimeLimit < time.Second {
		return fmt.Errorf("--time-limit %s is below 1s", s.TimeLimit)
	}
	if len(s.DirectGet) == 0 || len(s.ServerVersions) == 0 || len(s.Nemeses) == 0 {
		return fmt.Errorf("empty matrix: --direct-get, --server-version and --nemesis each need a value")
	}
	for _, n := range s.Nemeses {
		if _, err := nemesis.Parse(n); err != nil {
			return err
		}
	}
	if s.Runs < 0 {
		return fmt.Errorf("--runs %d: want 1 or more", s.Runs)
	}
	if s.Bisect && len(s.ServerVersions) < 2 && !(len(s.ServerVersions) == 1 && strings.Contains(s.ServerVersions[0], "..")) {
		return fmt.Errorf("--bisect needs a release range, e.g. --server-version v2.14.9..v2.15.3")
	}
	if err := validateShard(s); err != nil {
		return err
	}
	if s.NemesisInterval < time.Second {
		return fmt.Errorf("--nemesis-interval %s is below 1s", s.NemesisInterval)
	}
	if s.RecoveryTimeout < 0 || s.CheckTimeout <= 0 {
		return fmt.Errorf("--recovery-timeout and --check-timeout must be positive")
	}
	cfg := s.Cluster.WithDefaults()
	for _, v := range s.ServerVersions {
		if lo, _, ok := strings.Cut(v, ".."); ok { // a range: the command expands it from the module proxy
			if err := tooOld(s.Workload, ss[0].Plan(cfg), strings.TrimSpace(lo)); err != nil {
				return fmt.Errorf("%w; --server-version %s starts before it: start the range at %s", err, v, ss[0].Plan(cfg).Since)
			}
			continue
		}
		cfg.ServerVersion = v
		if err := cfg.Validate(); err != nil {
			return err
		}
		if err := tooOld(s.Workload, ss[0].Plan(cfg), v); err != nil {
			return fmt.Errorf("%w; --server-version %s is older", err, v)
		}
	}
	for _, x := range ss {
		if err := x.Validate(cfg.Nodes); err != nil {
			return err
		}
	}
	return nil
}

// tooOld says whether release v (v2.11.8; empty or not a version:
// unknown, left to the API level check at setup) predates what
// the workload's plan needs.
func tooOld(workload string, p workloads.Plan, v string) error {
	if p.Since == "" || !semver.IsValid(v) || semver.Compare(v, p.Since) >= 0 {
		return nil
	}
	return fmt.Errorf("--workload %s needs %s, which came in nats-server %s", workload, p.Feature, p.Since)
}

// RefuseOlderServers refuses, before anything starts, a cluster the run
// did not start when one of its servers (name to the version it reports,
// 2.11.8) predates what the workload needs.
func RefuseOlderServers(s record.Spec, versions map[string]string) error {
	ss, err := settingsOf(s)
	if err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(versions))
	for _, name := range names {
		v := versions[name]
		if !strings.HasPrefix(v, "v") {
			v = "v" + v
		}
		// A pre-release or build of the release that brought the
		// feature (a branch's 2.12.0-dev) is left to the API level check
		// at setup.
		v = strings.TrimSuffix(strings.TrimSuffix(v, semver.Build(v)), semver.Prerelease(v))
		if err := tooOld(s.Workload, ss[0].Plan(s.Cluster), v); err != nil {
			return fmt.Errorf("%w; server %s runs %s", err, name, versions[name])
		}
	}
	return nil
}

// Refuse says, before anything starts, whether the runtime can do what
// every cell needs: the workload's own controls and every fault.
func Refuse(s record.Spec, rt cluster.Runtime) error {
	ss, err := settingsOf(s)
	if err != nil {
		return err
	}
	for _, x := range ss {
		if err := workloads.Refuse(s.Workload, x.Plan(s.Cluster).Needs, rt.Supports); err != nil {
			return err
		}
	}
	for _, n := range s.Nemeses {
		faults, err := nemesis.Parse(n)
		if err != nil {
			return err
		}
		if err := nemesis.Refuse(faults, rt); err != nil {
			return err
		}
	}
	return nil
}

// Execute runs every cell of spec on rt and stores the results. It returns
// an error only when nothing could be stored; cell failures are results.
func Execute(ctx context.Context, spec record.Spec, rt cluster.Runtime, out *os.File) (record.Result, error) {
	return execute(ctx, spec, rt, out, nil)
}

// execute is Execute with each cell run by cell (nil: a real cell).
func execute(ctx context.Context, spec record.Spec, rt cluster.Runtime, out *os.File,
	cell func(context.Context, record.Cell, string) record.CellResult) (record.Result, error) {
	spec.Cluster = spec.Cluster.WithDefaults()
	id, dir, err := newRunDir(spec.Store, spec.Seed, time.Now())
	if err != nil {
		return record.Result{}, fmt.Errorf("store: %w", err)
	}
	r := &runner{spec: spec, rt: rt, id: id, dir: dir, out: out, cell: cell}
	if r.cell == nil {
		r.cell = r.runCell
	}
	r.logf = func(format string, args ...any) { fmt.Fprintf(out, "  "+format+"\n", args...) }
	res := record.Result{ID: id, Dir: dir, Command: spec.Command, Seed: spec.Seed, Runtime: rt.Name(), ClientVersion: natsGoVersion(),
		GoVersion: goruntime.Version(), StartedAt: time.Now(), Spec: spec, Verdict: record.Valid}
	if err := record.WriteSpec(dir, spec); err != nil {
		return res, err
	}
	fmt.Fprintf(out, "run %s: workload %s, runtime %s, seed %d, store %s\n", id, spec.Workload, rt.Name(), spec.Seed, dir)
	units := spec.Cells()
	if spec.Shard != nil {
		fmt.Fprintf(out, "shard %s: %d of the matrix's %d cells and runs\n", spec.Shard, len(units), len(spec.AllCells()))
	}
	if spec.Bisect {
		res.Bisect = r.bisect(ctx, &res)
		PrintBisection(out, res.Bisect)
	} else {
		for _, cell := range units {
			if ctx.Err() != nil {
				break
			}
			cr := r.runOne(ctx, &res, cell)
			if spec.UntilFail && cr.Verdict == record.Invalid {
				fmt.Fprintf(out, "\n--until-fail: %s found an anomaly; stopping\n", cr.Name)
				break
			}
		}
	}
	if spec.Runs > 1 {
		res.Repeats = summarizeRepeats(res.Cells, spec.Command, plannedRuns(units))
		PrintRepeats(out, res.Repeats)
	}
	if ctx.Err() != nil {
		res.Interrupted = true
	}
	if checks := r.checkRun(res.Cells); len(checks) > 0 {
		res.Checks = checks
		res.Verdict = record.Worse(res.Verdict, record.VerdictOf(checks))
		fmt.Fprintf(out, "\n== across cells ==\n")
		for _, c := range checks {
			fmt.Fprintf(out, "  %-8s %-22s %s\n", c.Verdict, c.Name, c.Summary)
		}
	}
	if err := record.WriteResult(res); err != nil {
		return res, err
	}
	_ = record.WriteLive(dir, record.Live{Phase: "done", Line: "verdict: " + string(res.Verdict), Done: true})
	fmt.Fprintf(out, "\nverdict: %s (results in %s)\nrerun: %s\n", res.Verdict, dir, spec.Command)
	return res, nil
}

// runOne runs one cell, stores its results.json and adds it to res.
func (r *runner) runOne(ctx context.Context, res *record.Result, cell record.Cell) record.CellResult {
	cdir := filepath.Join(r.dir, cell.Name)
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		cr := record.CellResult{Cell: cell, Workload: r.spec.Workload, Label: cell.Label(), Dir: cdir, Verdict: record.Error, Error: err.Error()}
		res.Cells = append(res.Cells, cr)
		res.Verdict = record.Worse(res.Verdict, record.Error)
		return cr
	}
	cr := r.cell(ctx, cell, cdir)
	PrintCell(r.out, cr)
	if err := record.WriteCellResult(r.dir, cdir, cr); err != nil {
		r.logf("write results: %v", err)
	}
	res.Cells = append(res.Cells, cr)
	res.Verdict = record.Worse(res.Verdict, cr.Verdict)
	return cr
}

// checkRun runs the workload's checks across the cells that ran.
func (r *runner) checkRun(cells []record.CellResult) []checker.Result {
	w, err := workloads.Get(r.spec.Workload)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, c := range cells {
		if c.Error == "" {
			dirs = append(dirs, c.Dir)
		}
	}
	return CheckRun(w, dirs)
}

// CheckRun is the workload's checks across stored cells (none when the
// workload has none); an error reading them is an unknown result.
func CheckRun(w workloads.Workload, cellDirs []string) []checker.Result {
	rc, ok := w.(workloads.RunChecker)
	if !ok || len(cellDirs) < 2 {
		return nil
	}
	var checks []checker.Result
	var err error
	// A panic across the cells is one unknown result, like a cell's check.
	r := checker.Guard("across-cells", func() checker.Result {
		checks, err = rc.CheckRun(cellDirs)
		return checker.Result{Verdict: checker.Valid}
	})
	switch {
	case r.Verdict != checker.Valid:
		return []checker.Result{r}
	case err != nil:
		return []checker.Result{{Name: "across-cells", Verdict: checker.Unknown, Summary: err.Error(), Reason: err.Error()}}
	}
	return checks
}

// natsGoVersion is the nats.go version this binary was built with.
func natsGoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/nats-io/nats.go" {
				return d.Version
			}
		}
	}
	return ""
}
