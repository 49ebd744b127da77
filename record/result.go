package record

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
)

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

// CellResult is one cell's results.json.
type CellResult struct {
	Cell
	// Workload names the workload, so that a cell copied out of its run
	// folder (without run.json) is still judged by its own checkers.
	Workload  string         `json:"workload_name,omitempty"`
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

// Online is what a workload's live checks saw during the workload
// (kv-update's: package workloads/kvupdate/online); the offline checks are
// the verdict.
type Online struct {
	// Counts are the live checks' counts by name (kv-update's: gets,
	// stale_reads, ryw_violations, ...).
	Counts map[string]int64 `json:"counts"`
	// Words say the counts in a line, as the workload's live checker put
	// them ("3 stale reads, ..."); Line falls back on the counts for cells
	// stored before the field.
	Words string       `json:"words,omitempty"`
	First *LiveAnomaly `json:"first,omitempty"`
	// FirstAfter is the first anomaly's completion, from the start of the
	// workload phase.
	FirstAfter time.Duration `json:"first_after_ns,omitempty"`
	// Stopped says --stop-on-anomaly ended the workload early.
	Stopped bool `json:"stopped,omitempty"`
}

// LiveAnomaly is the first anomaly the live checks found: its kind and the
// op that showed it.
type LiveAnomaly struct {
	Kind string     `json:"kind"`
	Op   history.Op `json:"op"`
}

// Line says the live counts in words: the live checker's own, or, for a
// cell stored before Words, kv-update's counts as that version said them
// (the only workload that had live checks then), or the counts by name.
func (o Online) Line() string {
	if o.Words != "" {
		return o.Words
	}
	if _, kv := o.Counts["stale_reads"]; kv {
		c := o.Counts
		return fmt.Sprintf("%d stale reads, %d read-your-writes and %d monotonic-read violations, %d updates rejected by stale reads",
			c["stale_reads"], c["ryw_violations"], c["monotonic_violations"], c["rejected_by_stale_reads"])
	}
	parts := make([]string, 0, len(o.Counts))
	for _, k := range slices.Sorted(maps.Keys(o.Counts)) {
		parts = append(parts, fmt.Sprintf("%s %d", strings.ReplaceAll(k, "_", " "), o.Counts[k]))
	}
	return strings.Join(parts, ", ")
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
	c := NewOpCounts()
	for _, op := range ops {
		c.Add(op)
	}
	return c.Rated(d)
}

// NewOpCounts is an empty summary, ready for Add.
func NewOpCounts() OpCounts {
	return OpCounts{ByType: map[string]int{}, ErrorsByKind: map[string]int{}}
}

// Add counts one op (the recorder's watcher, so ops need not stay in
// memory); fault records are not ops.
func (c *OpCounts) Add(op history.Op) {
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

// Rated is c with its rate over the workload time d (none when d is 0).
func (c OpCounts) Rated(d time.Duration) OpCounts {
	if d > 0 {
		c.OpsPerSec = float64(c.Total) / d.Seconds()
	}
	return c
}
