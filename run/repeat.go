package run

import (
	"context"
	"fmt"
	"io"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// summarizeRepeats groups the cells by their base name, in order; planned
// is how many runs of each base the run was to make (plannedRuns).
func summarizeRepeats(cells []record.CellResult, command string, planned map[string]int) []record.RepeatSummary {
	var out []record.RepeatSummary
	at := map[string]int{}
	for _, c := range cells {
		base := c.Base
		if base == "" {
			base = c.Name
		}
		i, ok := at[base]
		if !ok {
			i = len(out)
			at[base] = i
			out = append(out, record.RepeatSummary{Cell: base, ServerVersion: c.ServerVersion, Planned: planned[base]})
		}
		s := &out[i]
		s.Runs++
		switch c.Verdict {
		case record.Invalid:
			s.Failed++
			if s.FirstFailure == nil {
				s.FirstFailure = &record.Failure{Repeat: c.Repeat, Seed: c.Seed, Dir: c.Dir, Rerun: record.RerunOne(command, c)}
			}
		case record.Unknown:
			s.Unknown++
		case record.Error:
			s.Errors++
		}
		s.Rate = float64(s.Failed) / float64(s.Runs)
	}
	return out
}

// plannedRuns is how many runs of each cell (by base name) units holds:
// --runs, or a shard's part of them.
func plannedRuns(units []record.Cell) map[string]int {
	n := map[string]int{}
	for _, c := range units {
		n[c.Base]++
	}
	return n
}

// PrintRepeats writes the summary across runs.
func PrintRepeats(w io.Writer, reps []record.RepeatSummary) {
	fmt.Fprintf(w, "\n== across runs ==\n")
	for _, s := range reps {
		line := fmt.Sprintf("  %-40s %d of %d runs found an anomaly (%.0f %%)", s.Cell, s.Failed, s.Runs, 100*s.Rate)
		if s.Unknown+s.Errors > 0 {
			line += fmt.Sprintf("; %d unknown, %d harness errors", s.Unknown, s.Errors)
		}
		if s.Planned > s.Runs {
			line += fmt.Sprintf("; stopped after %d of the %d runs asked for", s.Runs, s.Planned)
		}
		fmt.Fprintln(w, line)
		if f := s.FirstFailure; f != nil {
			fmt.Fprintf(w, "    first: run %d, seed %d, %s\n    rerun: %s\n", f.Repeat, f.Seed, f.Dir, f.Rerun)
		}
	}
}

// failing is what bisection asks of a release: did any run find an
// anomaly. A release with none may still have it (intermittent): the rate
// and runs say how strong a "passes" is.
func failing(v record.VersionRate) bool { return v.Failed > 0 }

// bisect probes the spec's release range, each release --runs times.
func (r *runner) bisect(ctx context.Context, res *record.Result) *record.Bisection {
	b := bisectVersions(r.spec.ServerVersions, func(v string) record.VersionRate { return r.probeVersion(ctx, res, v) },
		func() bool { return ctx.Err() != nil })
	if b.Subject = serverbin.Subject(b.FirstChange); b.Subject != "" {
		b.Detail += fmt.Sprintf("; commit %s: %q", b.FirstChange, b.Subject)
	}
	return b
}

// bisectVersions probes the first and last release of vs, and then halves
// the range between a failing and a passing release until they are next
// to each other.
func bisectVersions(vs []string, probeV func(string) record.VersionRate, interrupted func() bool) *record.Bisection {
	b := &record.Bisection{}
	probe := func(i int) record.VersionRate {
		v := probeV(vs[i])
		b.Probes = append(b.Probes, v)
		return v
	}
	lo, hi := probe(0), probe(len(vs)-1)
	if interrupted() {
		b.Detail = "interrupted"
		return b
	}
	if failing(lo) == failing(hi) {
		b.Detail = fmt.Sprintf("could not decide: %s and %s both %s (%d/%d and %d/%d runs found an anomaly)",
			lo.ServerVersion, hi.ServerVersion, passWord(failing(lo)), lo.Failed, lo.Runs, hi.Failed, hi.Runs)
		return b
	}
	i, j := 0, len(vs)-1
	for j-i > 1 && !interrupted() {
		m := (i + j) / 2
		if failing(probe(m)) == failing(lo) {
			i = m
		} else {
			j = m
		}
	}
	if interrupted() {
		b.Detail = "interrupted"
		return b
	}
	b.Decided, b.FirstChange, b.Change = true, vs[j], "starts"
	if failing(lo) {
		b.Change = "stops"
	}
	last, first := rateOf(b.Probes, vs[i]), rateOf(b.Probes, vs[j])
	b.Detail = fmt.Sprintf("the anomaly %s at %s: %s %d of %d runs, %s %d of %d runs", b.Change, vs[j],
		vs[i], last.Failed, last.Runs, vs[j], first.Failed, first.Runs)
	if b.Change == "stops" {
		b.Detail += fmt.Sprintf(" (0 of %d runs does not prove it gone: raise --runs to be surer)", first.Runs)
	}
	return b
}

func passWord(failing bool) string {
	if failing {
		return "fail"
	}
	return "pass"
}

func rateOf(ps []record.VersionRate, v string) record.VersionRate {
	for _, p := range ps {
		if p.ServerVersion == v {
			return p
		}
	}
	return record.VersionRate{ServerVersion: v}
}

// probeVersion runs every cell of one release, --runs times (stopping at
// its first failure with --until-fail), and rates it: a run fails when a
// cell found an anomaly that --expect does not excuse.
func (r *runner) probeVersion(ctx context.Context, res *record.Result, v string) record.VersionRate {
	vr := record.VersionRate{ServerVersion: v}
	exps, _ := record.ParseExpects(r.spec.Expect) // parsed before the run started
	for rep := 1; rep <= max(r.spec.Runs, 1) && ctx.Err() == nil; rep++ {
		failed := false
		for _, c := range r.spec.CellsOf([]string{v}, rep) {
			cr := r.runOne(ctx, res, c)
			failed = failed || record.Unexcused(cr, exps)
		}
		vr.Runs++
		if failed {
			vr.Failed++
			if r.spec.UntilFail {
				break
			}
		}
	}
	if vr.Runs > 0 {
		vr.Rate = float64(vr.Failed) / float64(vr.Runs)
	}
	return vr
}

// PrintBisection writes what --bisect found.
func PrintBisection(w io.Writer, b *record.Bisection) {
	fmt.Fprintf(w, "\n== bisect ==\n")
	for _, p := range b.Probes {
		fmt.Fprintf(w, "  %-10s %d of %d runs found an anomaly\n", p.ServerVersion, p.Failed, p.Runs)
	}
	fmt.Fprintf(w, "  %s\n", b.Detail)
}
