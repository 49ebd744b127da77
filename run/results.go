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
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/online"
)

// Verdict of a cell or a run. Harness errors are their own verdict: a cell
// that could not run proved nothing either way.
type Verdict string

const (
	Valid   Verdict = "valid"
	Invalid Verdict = "invalid"
	Unknown Verdict = "unknown"
	Error   Verdict = "error"
)

// Exit codes, documented in the README.
const (
	ExitValid       = 0
	ExitInvalid     = 1
	ExitUnknown     = 2
	ExitUsage       = 3
	ExitHarness     = 4
	ExitInterrupted = 130
)

// ExitCode maps a verdict to the process exit code.
func (v Verdict) ExitCode() int {
	switch v {
	case Valid:
		return ExitValid
	case Invalid:
		return ExitInvalid
	case Unknown:
		return ExitUnknown
	}
	return ExitHarness
}

// Worse orders verdicts: an anomaly found is the strongest signal, then a
// harness error, then unknown.
func Worse(a, b Verdict) Verdict {
	rank := map[Verdict]int{Valid: 0, Unknown: 1, Error: 2, Invalid: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// OpCounts summarises a history.
type OpCounts struct {
	Total         int            `json:"total"`
	OK            int            `json:"ok"`
	Failed        int            `json:"failed"`
	Indeterminate int            `json:"indeterminate"`
	ByType        map[string]int `json:"by_type"`
	ErrorsByKind  map[string]int `json:"errors_by_kind"`
	OpsPerSec     float64        `json:"ops_per_sec"`
}

// CountOps summarises a history; d is the workload time for the rate.
func CountOps(ops []history.Op, d time.Duration) OpCounts {
	c := newOpCounts()
	for _, op := range ops {
		c.add(op)
	}
	return c.rated(d)
}

func newOpCounts() OpCounts {
	return OpCounts{ByType: map[string]int{}, ErrorsByKind: map[string]int{}}
}

// add counts one op (the recorder's watcher, so ops need not stay in
// memory).
func (c *OpCounts) add(op history.Op) {
	if op.Type == history.Fault {
		return
	}
	c.Total++
	c.ByType[string(op.Type)]++
	switch op.Outcome {
	case history.OK:
		c.OK++
	case history.Fail:
		c.Failed++
	case history.Info:
		c.Indeterminate++
	}
	if op.Outcome != history.OK && op.Err != "" {
		c.ErrorsByKind[string(op.Err)]++
	}
}

func (c OpCounts) rated(d time.Duration) OpCounts {
	if d > 0 {
		c.OpsPerSec = float64(c.Total) / d.Seconds()
	}
	return c
}

// Online is what the online checks saw during the workload (package
// online); the offline checks are the verdict.
type Online struct {
	Counts online.Counts `json:"counts"`
	First  *online.First `json:"first,omitempty"`
	// FirstAfter is the first anomaly's completion, from the start of the
	// workload phase.
	FirstAfter time.Duration `json:"first_after_ns,omitempty"`
	// Stopped says --stop-on-anomaly ended the workload early.
	Stopped bool `json:"stopped,omitempty"`
}

// CellResult is one cell's results.json.
type CellResult struct {
	Cell
	Label     string         `json:"label"`
	Dir       string         `json:"dir"`
	Runtime   string         `json:"runtime"`
	Cluster   cluster.Config `json:"cluster"`
	Nodes     []cluster.Node `json:"nodes,omitempty"`
	StartedAt time.Time      `json:"started_at"`
	// HistoryStart is the wall-clock time of the history's zero: op and
	// fault times are nanoseconds after it, so they can be lined up with
	// the servers' log lines.
	HistoryStart time.Time          `json:"history_start,omitempty"`
	Phases       map[string]float64 `json:"phase_seconds"`
	Ops          OpCounts           `json:"ops"`
	Faults       []nemesis.Window   `json:"faults"`
	Recovery     *nemesis.Recovery  `json:"recovery,omitempty"`
	Stream       struct {
		Entries  int  `json:"entries"`
		Complete bool `json:"complete"`
	} `json:"stream"`
	Checks  []checker.Result `json:"checks"`
	Verdict Verdict          `json:"verdict"`
	Error   string           `json:"error,omitempty"`
	Online  *Online          `json:"online,omitempty"`
	// Summary is the workload's own account of the cell, a line each
	// (peaks, catch-up time), read from its files like the checks.
	Summary []string `json:"summary,omitempty"`
	// Watch is what the cluster's watcher saw, when the faults needed one
	// (triggers, roles); every event is in events.jsonl.
	Watch *WatchSummary `json:"watch,omitempty"`
}

// WatchSummary is the coverage of a watched cell: how many events of each
// kind came, and what could not be followed and why.
type WatchSummary struct {
	Events map[string]int    `json:"events"`
	Notes  map[string]string `json:"notes,omitempty"`
}

func (r *CellResult) phase(name string, start time.Time) {
	if r.Phases == nil {
		r.Phases = map[string]float64{}
	}
	r.Phases[name] = time.Since(start).Seconds()
}

// Result is the run's results.json.
type Result struct {
	ID      string `json:"id"`
	Dir     string `json:"dir"`
	Command string `json:"command"`
	Seed    uint64 `json:"seed"`
	Runtime string `json:"runtime"`
	// ClientVersion is the nats.go the clients ran; GoVersion the Go that
	// built the harness.
	ClientVersion string       `json:"client_version,omitempty"`
	GoVersion     string       `json:"go_version,omitempty"`
	StartedAt     time.Time    `json:"started_at"`
	Spec          Spec         `json:"spec"`
	Cells         []CellResult `json:"cells"`
	// Checks are the workload's checks across cells (memory against
	// backlog), judged from the stored cells.
	Checks      []checker.Result `json:"checks,omitempty"`
	Verdict     Verdict          `json:"verdict"`
	Interrupted bool             `json:"interrupted,omitempty"`
	// Repeats sums up each cell over --runs; Bisect is what --bisect found.
	Repeats []RepeatSummary `json:"repeats,omitempty"`
	Bisect  *Bisection      `json:"bisect,omitempty"`
}

// VerdictOf is the verdict of a cell's checks.
func VerdictOf(checks []checker.Result) Verdict {
	switch checker.Worst(checks) {
	case checker.Valid:
		return Valid
	case checker.Invalid:
		return Invalid
	}
	return Unknown
}

// PrintCell writes the terminal summary of one cell.
func PrintCell(w io.Writer, r CellResult) {
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
		c := o.Counts
		line := fmt.Sprintf("  online: %d stale reads, %d read-your-writes and %d monotonic-read violations, %d rejections by stale reads",
			c.StaleReads, c.RYW, c.Monotonic, c.RejectedStale)
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
// cluster that does not come back is a finding, not a crash.
func recoveryCheck(r nemesis.Recovery) checker.Result {
	res := checker.Result{Name: "recovery", Verdict: checker.Valid, Summary: r.Detail,
		Counts: map[string]int{"recovered": 0}}
	if r.Recovered {
		res.Counts["recovered"] = 1
	} else {
		res.Verdict = checker.Invalid
	}
	return res
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
