package run

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// setPhase records how long the cell's phase name took since start.
func setPhase(r *record.CellResult, name string, start time.Time) {
	if r.Phases == nil {
		r.Phases = map[string]float64{}
	}
	r.Phases[name] = time.Since(start).Seconds()
}

// PrintCell writes the terminal summary of one cell.
func PrintCell(w io.Writer, r record.CellResult) {
	fmt.Fprintf(w, "\n== %s: %s ==\n", r.Label, strings.ToUpper(string(r.Verdict)))
	if r.Error != "" {
		fmt.Fprintf(w, "  harness error: %s\n", r.Error)
	}
	if o := r.Ops; o.Total > 0 {
		fmt.Fprintf(w, "  ops %d (%.0f/s): ok %d, failed %d, indeterminate %d\n", o.Total, o.OpsPerSec, o.OK, o.Failed, o.Indeterminate)
	}
	o := r.Ops
	if len(o.ErrorsByKind) > 0 {
		fmt.Fprintf(w, "  errors: %s\n", joinCounts(o.ErrorsByKind))
	}
	for _, f := range r.Faults {
		fmt.Fprintf(w, "  fault %-16s %-10s %6.1fs-%6.1fs  inject %.1fs heal %.1fs  %s%s  %s\n",
			f.Fault, strings.Join(f.Targets, ","), f.Start.Seconds(), f.End.Seconds(),
			f.Inject.Seconds(), f.Heal.Seconds(), verifiedWord(f), aimedAt(f), f.Detail)
	}
	if wt := r.Watch; wt != nil {
		fmt.Fprintf(w, "  events: %s\n", orNone(joinCounts(wt.Events)))
		for _, src := range slices.Sorted(maps.Keys(wt.Notes)) {
			fmt.Fprintf(w, "  events not followed (%s): %s\n", src, wt.Notes[src])
		}
	}
	if r.Recovery != nil {
		fmt.Fprintf(w, "  recovery: %s\n", r.Recovery.Detail)
	}
	if o := r.Online; o != nil {
		line := "  online: " + o.Line()
		if o.First != nil {
			line += fmt.Sprintf("; first anomaly (%s) %.2fs into the workload", o.First.Kind, o.FirstAfter.Seconds())
		}
		if o.Stopped {
			line += "; --stop-on-anomaly stopped the workload there"
		}
		fmt.Fprintln(w, line)
	}
	for _, l := range r.Summary {
		fmt.Fprintln(w, l)
	}
	for _, c := range r.Checks {
		fmt.Fprintf(w, "  %-8s %-22s %s\n", c.Verdict, c.Name, c.Summary)
	}
	fmt.Fprintf(w, "  files: %s\n", r.Dir)
}

// aimedAt is, for a triggered window, when its fault took effect after its
// event, and each replica's lag then.
func aimedAt(f nemesis.Window) string {
	d, ok := f.EventToEffect()
	if !ok {
		return ""
	}
	s := fmt.Sprintf(", effect %dms after its event at %.3fs", d.Milliseconds(), f.Event.At.Seconds())
	if len(f.Lag) > 0 {
		var lags []string
		for _, n := range slices.Sorted(maps.Keys(f.Lag)) {
			lags = append(lags, fmt.Sprintf("%s %d", n, f.Lag[n]))
		}
		s += " (lag then: " + strings.Join(lags, ", ") + ")"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func verifiedWord(f nemesis.Window) string {
	switch {
	case !f.Injected:
		return "NOT INJECTED"
	case !f.Verified:
		return "UNVERIFIED"
	}
	return "verified"
}

// recoveryCheck turns the wait after the final heal into a result: a
// cluster that does not come back is a finding, not a crash, unless the
// toolkit itself could not undo a fault (unhealed: the windows whose heal
// was not verified, e.g. a member replaced while its removal could not
// commit). Then the cluster was not given back whole, so its not
// recovering proves nothing: unknown, naming them.
func recoveryCheck(r nemesis.Recovery, unhealed []string) checker.Result {
	res := checker.Result{Name: "recovery", Verdict: checker.Valid, Summary: r.Detail,
		Counts: map[string]int{"recovered": 0}}
	switch {
	case r.Recovered:
		res.Counts["recovered"] = 1
	case len(unhealed) > 0:
		res.Verdict = checker.Unknown
		res.Reason = "the cluster did not recover, but the toolkit could not verify that it undid every fault, which can explain it: " +
			strings.Join(unhealed, "; ")
	default:
		res.Verdict = checker.Invalid
	}
	return res
}

// unhealedFaults lists the cell's fault windows whose heal was not
// verified, from history.jsonl: "fault targets: the heal's words". A
// window's detail is "inject: ...; heal: ..." (nemesis.healWindow).
func unhealedFaults(historyPath string) ([]string, error) {
	ops, err := history.ReadOpsWhere(historyPath, func(o *history.Op) bool { return o.Type == history.Fault })
	if err != nil {
		return nil, err
	}
	var out []string
	for _, o := range ops {
		_, heal, ok := strings.Cut(o.Detail, "; heal: ")
		if ok && strings.Contains(heal, "NOT VERIFIED") {
			out = append(out, fmt.Sprintf("%s %s: heal: %s", o.Fault, strings.Join(o.Targets, ","), heal))
		}
	}
	return out, nil
}

func joinCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
