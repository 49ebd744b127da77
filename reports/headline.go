package reports

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// maxListed is how many cells the headline names one by one; past it, it
// names the cells with findings and counts the rest.
const maxListed = 4

// ShortLabels names each cell by what sets it apart from the others:
// "Direct Get on", "Direct Get off under kill", "v2.10.22, Direct Get on".
// Direct Get is always named: it is what the toolkit is about.
func ShortLabels(cells []run.CellResult) []string {
	versions, nemeses := map[string]bool{}, map[string]bool{}
	for _, c := range cells {
		versions[c.ServerVersion] = true
		nemeses[c.Nemesis] = true
	}
	tags := workloadTags(cells)
	out := make([]string, len(cells))
	for i, c := range cells {
		s := "Direct Get " + onOff(c.DirectGet)
		if len(versions) > 1 {
			s = c.ServerVersion + ", " + s
		}
		if tags[i] != "" {
			s += ", " + tags[i]
		}
		if len(nemeses) > 1 {
			if c.Nemesis == "" || c.Nemesis == "none" {
				s += " without faults"
			} else {
				s += " under " + c.Nemesis
			}
		}
		out[i] = s
	}
	return out
}

// workloadTags names what sets each cell's workload apart: "10 keys,
// 20 clients"; empty when every cell runs the same.
func workloadTags(cells []run.CellResult) []string {
	fields := []func(o kvupdate.Options) string{
		func(o kvupdate.Options) string { return fmt.Sprintf("%d keys", o.Keys) },
		func(o kvupdate.Options) string { return fmt.Sprintf("%d clients", o.Clients) },
		func(o kvupdate.Options) string { return string(o.Pattern) },
		func(o kvupdate.Options) string { return fmt.Sprintf("R%d", o.Replicas) },
		func(o kvupdate.Options) string {
			if o.Rate == 0 {
				return "unthrottled"
			}
			return fmt.Sprintf("%g ops/s", o.Rate)
		},
	}
	tags := make([]string, len(cells))
	for _, f := range fields {
		seen := map[string]bool{}
		for _, c := range cells {
			seen[f(kvOf(c.Settings))] = true
		}
		if len(seen) < 2 {
			continue
		}
		for i, c := range cells {
			if tags[i] != "" {
				tags[i] += ", "
			}
			tags[i] += f(kvOf(c.Settings))
		}
	}
	return tags
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Headline is the verdict of a run in one sentence a person understands:
// "Direct Get on: 2,807 stale reads (5.6 % of reads), 2,808 updates
// rejected because of them; Direct Get off: none (all 6 checks passed)".
func Headline(res run.Result, exps ...Expectation) string {
	return strings.Join(HeadlineParts(res, exps...), " ")
}

// HeadlineParts is Headline cut into one clause per cell (the page shows
// one a line); joined with spaces they are the sentence.
//
// For a catch-up run each cell is a sentence of its own, read from the
// cell's catchup.json under res.Dir (or the cell's recorded folder).
func HeadlineParts(res run.Result, exps ...Expectation) []string {
	return headlineParts(res, exps, nil)
}

// headlineParts is HeadlineParts with the catch-up results already loaded
// (nil: read them from disk when the run is a catch-up run).
func headlineParts(res run.Result, exps []Expectation, cus []*catchup.Result) []string {
	judged, _ := JudgeRun(res, exps)
	if len(res.Cells) == 0 {
		if res.Interrupted {
			return []string{"The run was interrupted before any cell finished."}
		}
		return []string{"No cell ran."}
	}
	if isCatchupRun(res) {
		if cus == nil {
			cus = make([]*catchup.Result, len(res.Cells))
			for i, c := range res.Cells {
				cus[i] = catchupOf(res, c)
			}
		}
		return catchupHeadline(res, judged, cus)
	}
	labels := ShortLabels(res.Cells)
	var parts, quiet []string
	for i, c := range res.Cells {
		s := Summarize(c)
		if len(res.Cells) > maxListed && s.Verdict == run.Valid {
			quiet = append(quiet, labels[i])
			continue
		}
		part := labels[i] + ": " + s.Sentence()
		if c.Verdict == run.Invalid && judged[i].Verdict == run.Valid {
			part += " (expected)"
		}
		parts = append(parts, part)
	}
	switch {
	case len(parts) == 0:
		return []string{fmt.Sprintf("All %d cells valid: no stale reads and no other anomaly (%s).", len(quiet), strings.Join(quiet, "; "))}
	case len(quiet) > 0:
		parts = append(parts, fmt.Sprintf("the other %d cells: none", len(quiet)))
	}
	for i := range parts[:len(parts)-1] {
		parts[i] += ";"
	}
	parts[len(parts)-1] += "."
	if res.Interrupted {
		parts = append(parts, "The run was interrupted: cells after these did not run.")
	}
	return parts
}

// VerdictLine says what the run's verdict and exit code mean; raw is the
// verdict before expected anomalies were excused.
func VerdictLine(v, raw run.Verdict) string {
	switch v {
	case run.Valid:
		if raw == run.Invalid {
			return "Only the expected anomalies were found (exit code 0 under --expect): the known finding reproduced and everything else passed."
		}
		return "Valid: every check passed in every cell (exit code 0)."
	case run.Invalid:
		return "Anomalies found in at least one cell (exit code 1)."
	case run.Unknown:
		return "Unknown: a check could not decide, and nothing was found (exit code 2). Unknown is never a pass."
	}
	return "Harness error: a cell could not run, so it proved nothing either way (exit code 4)."
}
