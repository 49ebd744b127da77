package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// runCatchupCell runs one catch-up cell. The workload starts and closes its
// own cluster (it sizes the config: memory limit, catch-up knobs) and saves
// its series in catchup.json; the cell result keeps the verdicts and
// timings, which is what the matrix compares.
func (r *runner) runCatchupCell(ctx context.Context, cell Cell, dir string) CellResult {
	res := CellResult{Cell: cell, Label: "catch-up, " + cell.Label(), Dir: dir, Runtime: r.rt.Name(), Verdict: Error}
	base := r.spec.Cluster
	base.ServerVersion, base.RunID = cell.ServerVersion, r.id
	opts := *r.spec.Catchup
	opts.DirectGet = cell.DirectGet
	cr := catchup.RunCell(ctx, r.rt, base, opts, dir, r.spec.KeepData, r.out)
	res.Cluster, res.Nodes, res.StartedAt = cr.Cluster, cr.Nodes, cr.StartedAt
	res.Phases = map[string]float64{}
	for _, p := range cr.Phases {
		res.Phases[string(p.Name)] = float64(p.EndMs-p.StartMs) / 1000
	}
	res.Checks = cr.Checks
	res.Verdict = VerdictOf(cr.Checks)
	if cr.Error != "" {
		res.Error, res.Verdict = cr.Error, Error
	}
	if ctx.Err() != nil && res.Error == "" {
		res.Error, res.Verdict = fmt.Sprintf("interrupted; what was measured is in %s", dir), Error
	}
	return res
}

// validateCatchup checks what a catch-up run takes: no nemesis (the workload
// is its own fault: kill, wipe, restart under a limit).
func (s Spec) validateCatchup(nodes int) error {
	for _, n := range s.Nemeses {
		if strings.TrimSpace(n) != "none" && strings.TrimSpace(n) != "" {
			return fmt.Errorf("--nemesis %q: the catchup workload is its own fault (kill, wipe, restart under a limit); use --nemesis none", n)
		}
	}
	if s.Catchup == nil {
		return fmt.Errorf("the catchup workload needs its options")
	}
	return s.Catchup.Validate(nodes)
}
