package catchup

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// Result is everything one catch-up cell measured, saved as catchup.json
// in the cell's dir. Times are ms since StartedAt unless named otherwise.
type Result struct {
	Options       Options        `json:"options"`
	Runtime       string         `json:"runtime"`
	Cluster       cluster.Config `json:"cluster"`
	Nodes         []cluster.Node `json:"nodes"`
	ServerVersion string         `json:"server_version"`
	GoMemLimit    int64          `json:"gomemlimit"` // what the nodes run with (0: unset)
	StartedAt     time.Time      `json:"started_at"`
	// Dir is the cell's folder. It and Cluster.Dir are stored relative to
	// it (Save) and resolved on Load; older files hold absolute paths.
	Dir string `json:"dir"`

	Target       string `json:"target"`      // the node that was wiped and caught up
	TargetRole   Target `json:"target_role"` // what it was when killed
	LeaderAtKill string `json:"leader_at_kill"`

	Phases  []PhaseTime `json:"phases"`
	Stream  StreamStats `json:"stream"`
	CatchUp CatchUp     `json:"catchup"`

	// Observed names the pipeline's readings of every node (observe.File),
	// from which Load puts back Memory, Lag, Health, States, Deaths and the
	// events nobody asked for; empty in older cells, which hold them here.
	Observed string                 `json:"observed,omitempty"`
	Memory   []NodeMemory           `json:"memory,omitempty"`
	Events   []observe.Event        `json:"events"`
	Deaths   []observe.Deaths       `json:"deaths,omitempty"`
	Lag      []LagSample            `json:"lag,omitempty"`
	Health   []observe.HealthSample `json:"health,omitempty"`
	States   []observe.StateSample  `json:"-"` // from nodes.jsonl (states.jsonl in older cells)
	Publish  PublishSummary         `json:"publish"`
	Reads    ReadSummary            `json:"reads"`

	// Recovery is only in older files: the pipeline's recovery check replaced it.
	Recovery  *nemesis.Recovery `json:"recovery,omitempty"`
	Integrity Integrity         `json:"integrity"`
	LogLines  []LogMatch        `json:"log_lines,omitempty"`

	// Checks and Verdict are only in older files: checks are in results.json.
	Checks  []checker.Result `json:"checks,omitempty"`
	Verdict checker.Verdict  `json:"verdict,omitempty"`
	Notes   []string         `json:"notes,omitempty"`
	// Error is a harness failure: the cell could not run to the end.
	Error string   `json:"error,omitempty"`
	Files []string `json:"files,omitempty"`
}

// PhaseTime is one phase's span.
type PhaseTime struct {
	Name    Phase   `json:"name"`
	StartMs int64   `json:"start_ms"`
	EndMs   int64   `json:"end_ms"`
	Seconds float64 `json:"seconds"`
}

// Phase returns the span of a phase (zero when it did not run).
func (r Result) Phase(p Phase) PhaseTime {
	for _, ph := range r.Phases {
		if ph.Name == p {
			return ph
		}
	}
	return PhaseTime{}
}

// StreamStats is the stream's size at the moments that matter.
type StreamStats struct {
	Name        string  `json:"name"`
	AllowDirect bool    `json:"allow_direct"`
	FillMsgs    uint64  `json:"fill_msgs"`
	FillBytes   uint64  `json:"fill_bytes"`
	FillMBps    float64 `json:"fill_mb_per_s"`
	// At the target's restart: what it had to catch up.
	RestartMsgs  uint64 `json:"restart_msgs"`
	RestartBytes uint64 `json:"restart_bytes"`
	FinalMsgs    uint64 `json:"final_msgs"`
	FinalBytes   uint64 `json:"final_bytes"`
}

// Outcome of the wait for the target to be current.
const (
	OutcomeCurrent     = "current"
	OutcomeTimeout     = "timeout"
	OutcomeCrashLoop   = "crash-loop"
	OutcomeDown        = "down"
	OutcomeInterrupted = "interrupted"
)

// CatchUp is the target's way back.
type CatchUp struct {
	RestartAtMs int64 `json:"restart_at_ms"`
	// FirstSeenAtMs: its /jsz first shows the stream (snapshot applied).
	FirstSeenAtMs int64 `json:"first_seen_at_ms,omitempty"`
	// DataAtMs: it first held every message the leader had half a second
	// earlier.
	DataAtMs int64 `json:"data_at_ms,omitempty"`
	// CurrentAtMs: that, and its /healthz OK (commit == applied, streams
	// current) in the same sample. This is when catch-up is done.
	CurrentAtMs int64         `json:"current_at_ms,omitempty"`
	Completed   bool          `json:"completed"`
	Seconds     float64       `json:"seconds"` // restart -> current, or -> giving up
	Bound       time.Duration `json:"bound"`
	Outcome     string        `json:"outcome"`
	Detail      string        `json:"detail"`
	// The target's peaks while catching up (restart -> current) and after
	// (current -> end of settle): the report's jump came right after.
	PeakRSSDuring   int64 `json:"peak_rss_during"`
	PeakRSSAfter    int64 `json:"peak_rss_after"`
	PeakUsageDuring int64 `json:"peak_usage_during"`
	PeakUsageAfter  int64 `json:"peak_usage_after"`
	// MaxBehind is the most messages the target was behind the leader.
	MaxBehind uint64 `json:"max_behind"`
	// PublishedBytes is the payload acknowledged from the restart to the
	// end of the wait; 0 in older cells (see PublishSummary.PerSecond).
	PublishedBytes int64 `json:"published_bytes,omitempty"`
}

// buildChecks decides every check from a filled Result.
func buildChecks(r *Result) []checker.Result {
	o := r.Options
	return []checker.Result{
		checker.Guard(CheckOOMKill, func() checker.Result { return oomCheck(r.Deaths, o.MemoryLimit, r.Target) }),
		checker.Guard(CheckCrashLoop, func() checker.Result {
			return crashLoopCheck(r.Deaths, o.CrashLoop, r.Cluster.AutoRestart, progressAcrossDeaths(r.Lag, r.Deaths, r.Target))
		}),
		checker.Guard(CheckCatchUp, func() checker.Result { return catchUpCheck(r.CatchUp) }),
		checker.Guard(CheckMemory, func() checker.Result { return memoryCheck(r) }),
		checker.Guard(CheckReplicasAgree, func() checker.Result { return agreementCheck(r.Integrity) }),
		checker.Guard(CheckAckedPresent, func() checker.Result { return ackedCheck(r.Integrity) }),
	}
}

func result(name string, v checker.Verdict, summary string, counts map[string]int) checker.Result {
	if counts == nil {
		counts = map[string]int{}
	}
	r := checker.Result{Name: name, Verdict: v, Summary: summary, Counts: counts}
	if v == checker.Unknown {
		r.Reason = summary
	}
	return r
}

func oomCheck(deaths []observe.Deaths, limit bytesize.Bytes, target string) checker.Result {
	total := 0
	var parts []string
	for _, d := range deaths {
		if d.OOMKills > 0 {
			total += d.OOMKills
			parts = append(parts, d.Describe())
		}
	}
	counts := map[string]int{"oom_kills": total}
	if total > 0 {
		return result(CheckOOMKill, checker.Invalid, strings.Join(parts, "; "), counts)
	}
	if limit > 0 {
		return result(CheckOOMKill, checker.Valid, fmt.Sprintf("no OOM kill (limit %s on %s)", limit, target), counts)
	}
	return result(CheckOOMKill, checker.Valid, "no OOM kill (no memory limit set)", counts)
}

// crashLoopCheck judges the deaths; progress (progressAcrossDeaths) is
// added to what it says when a node died.
func crashLoopCheck(deaths []observe.Deaths, threshold int, autoRestart bool, progress string) checker.Result {
	restarts, died := 0, 0
	var loop, other []string
	for _, d := range deaths {
		restarts += d.Restarts
		died += d.Deaths
		if d.CrashLoop {
			loop = append(loop, d.Describe())
		} else if d.Deaths > 0 {
			other = append(other, d.Describe())
		}
	}
	counts := map[string]int{"restarts": restarts, "deaths": died, "crash_loops": len(loop)}
	if progress != "" {
		other = append(other, progress)
	}
	switch {
	case len(loop) > 0:
		return result(CheckCrashLoop, checker.Invalid, strings.Join(append(loop, other...), "; "), counts)
	case died > 0 && !autoRestart:
		return result(CheckCrashLoop, checker.Unknown, "a node died and the cluster has no AutoRestart, so a loop cannot show: "+strings.Join(other, "; "), counts)
	case died > 0:
		return result(CheckCrashLoop, checker.Unknown, fmt.Sprintf("a node died by itself, below the crash-loop threshold of %d restarts: %s", threshold, strings.Join(other, "; ")), counts)
	}
	return result(CheckCrashLoop, checker.Valid, "no node died or restarted by itself", counts)
}

func catchUpCheck(c CatchUp) checker.Result {
	counts := map[string]int{"completed": 0, "ms": int(c.Seconds * 1000)}
	switch c.Outcome {
	case OutcomeCurrent:
		counts["completed"] = 1
		return result(CheckCatchUp, checker.Valid, fmt.Sprintf("current %.1fs after the restart (bound %s): %s", c.Seconds, c.Bound, c.Detail), counts)
	case OutcomeInterrupted, "":
		return result(CheckCatchUp, checker.Unknown, "not decided: "+cmp.Or(c.Detail, "catchup.json records no outcome (the cell ended before the catch-up was judged)"), counts)
	}
	return result(CheckCatchUp, checker.Invalid, fmt.Sprintf("not current after %.1fs (%s, bound %s): %s", c.Seconds, c.Outcome, c.Bound, c.Detail), counts)
}

func agreementCheck(in Integrity) checker.Result {
	counts := map[string]int{"replicas": len(in.Replicas)}
	switch {
	case len(in.Replicas) == 0:
		return result(CheckReplicasAgree, checker.Unknown, "replicas not read: "+cmp.Or(in.ReplicasDetail, "catchup.json records no reading of them (the cell ended before its verify phase)"), counts)
	case in.ReplicasAgree:
		return result(CheckReplicasAgree, checker.Valid, in.ReplicasDetail, counts)
	}
	for _, r := range in.Replicas {
		if r.Err != "" {
			return result(CheckReplicasAgree, checker.Unknown, in.ReplicasDetail, counts)
		}
	}
	return result(CheckReplicasAgree, checker.Invalid, in.ReplicasDetail, counts)
}

func ackedCheck(in Integrity) checker.Result {
	counts := map[string]int{"acked": int(in.Acked), "read": int(in.Read), "missing": int(in.Missing),
		"duplicates": int(in.Dups), "malformed": int(in.Malformed), "unacked_present": int(in.Unacked)}
	switch {
	case in.Acked == 0 && in.Read == 0 && !in.Complete:
		return result(CheckAckedPresent, checker.Unknown, "the stream was not read back: "+cmp.Or(in.ReadDetail, "catchup.json records no read-back (the cell ended before its verify phase)"), counts)
	case in.Complete && in.Missing > 0:
		return result(CheckAckedPresent, checker.Invalid, fmt.Sprintf("%d of %d acknowledged ids missing from the stream (e.g. %s)",
			in.Missing, in.Acked, strings.Join(in.MissingExamples, ", ")), counts)
	case in.Dups > 0 || in.Malformed > 0:
		return result(CheckAckedPresent, checker.Invalid, fmt.Sprintf("%d ids stored more than once, %d messages without a valid id (%s)",
			in.Dups, in.Malformed, in.ReadDetail), counts)
	case !in.Complete:
		return result(CheckAckedPresent, checker.Unknown, fmt.Sprintf("read back incomplete, %d acknowledged ids not seen so far: %s", in.Missing, in.ReadDetail), counts)
	}
	return result(CheckAckedPresent, checker.Valid, fmt.Sprintf("all %d acknowledged ids present once (%d unacknowledged also stored); %s",
		in.Acked, in.Unacked, in.ReadDetail), counts)
}
