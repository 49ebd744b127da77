package replicas

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// Counts of CheckConverged, beside CheckDivergence's.
const (
	// CountReads is how many times the replicas were read after the heal.
	CountReads = "reads"
	// CountConvergeMs is how long after the first read they agreed.
	CountConvergeMs = "converge_ms"
	// CountReplicasBehind is how many replicas the last read found behind
	// (a last sequence below the highest), agreeing or not.
	CountReplicasBehind = "replicas_behind"
	// KindStuckCurrent is a replica behind at the first reading and still
	// behind at the last, which the stream's leader called current at the
	// last: stuck, not late, while the cluster says it is caught up. It is
	// an anomaly kind and the count of such replicas.
	KindStuckCurrent = "stuck_current"
)

// Reading is one reading of every replica after the heal. The workload
// reads them again while they differ, up to a bound: a replica that lacks
// the newest messages for a moment is late, not diverged.
type Reading struct {
	// After is how long after the first read this one began.
	After time.Duration `json:"after_ns"`
	// Differ says whether CheckDivergence found a difference in this read.
	Differ bool `json:"differ"`
	// Summary is CheckDivergence's summary of this read.
	Summary string `json:"summary"`
	// LastSeq is each read replica's last sequence (from /jsz, else the
	// last message read).
	LastSeq map[string]uint64 `json:"last_seq,omitempty"`
}

// ReadingOf summarizes one reading of the replicas for the record.
func ReadingOf(reps []Replica, after time.Duration, opts checker.Options) Reading {
	r := CheckDivergence(reps, opts)
	return Reading{After: after, Differ: r.Verdict == checker.Invalid, Summary: r.Summary, LastSeq: lastSeqs(reps)}
}

func lastSeqs(reps []Replica) map[string]uint64 {
	out := map[string]uint64{}
	for _, rp := range reps {
		switch {
		case rp.NotReplica:
		case rp.State != nil:
			out[rp.Node] = rp.State.LastSeq
		case len(rp.Entries) > 0:
			out[rp.Node] = rp.Entries[len(rp.Entries)-1].Seq
		}
	}
	return out
}

// CheckConverged judges the replicas as the last read found them, and says
// how they got there: replicas that differed at first and agreed on a later
// read were late (counted, valid); replicas that still differ when the
// reads stopped diverged, and each one behind the others is named. reads
// may be empty (cells stored before the replicas were read again): the
// verdict is then CheckDivergence's alone.
//
// A replica behind at the first reading and at the last that the stream's
// leader called current is stuck_current, its own anomaly kind: a late
// replica catches up; this one does not while the cluster says it has.
//
// Counts: CheckDivergence's, plus reads, converge_ms, replicas_behind and
// stuck_current.
func CheckConverged(reps []Replica, reads []Reading, opts checker.Options) checker.Result {
	r := CheckDivergence(reps, opts)
	r.Counts[CountReads] = max(len(reads), 1)
	behind := behindNames(lastSeqs(reps))
	r.Counts[CountReplicasBehind] = len(behind)
	if len(reads) < 2 {
		if r.Verdict == checker.Invalid && len(behind) > 0 {
			r.Summary += "; behind: " + strings.Join(behind, ", ")
		}
		return r
	}
	first, last := reads[0], reads[len(reads)-1]
	span := (last.After - first.After).Round(100 * time.Millisecond)
	switch r.Verdict {
	case checker.Invalid:
		r.Summary += fmt.Sprintf("; still so after %d reads over %s", len(reads), span)
		if len(behind) > 0 {
			r.Summary += ", behind: " + strings.Join(behind, ", ")
		}
		if stuck := stuckCurrent(reps, first, span); len(stuck) > 0 {
			r.Counts[KindStuckCurrent] = len(stuck)
			r.Anomalies = append(stuck[:min(len(stuck), opts.WithDefaults().MaxExamples)], r.Anomalies...)
			r.Summary += fmt.Sprintf("; %d of them stuck behind while the stream's leader called them current", len(stuck))
		}
	default:
		if first.Differ {
			r.Counts[CountConvergeMs] = int(span.Milliseconds())
			r.Summary += fmt.Sprintf("; late, not diverged: they agreed at read %d, %s after the first, which found %s",
				len(reads), span, lateDetail(first))
		}
	}
	return r
}

// stuckCurrent are the replicas behind at the first reading and at the
// last (reps), which the stream's leader called current at the last: its
// info's "current" comes from the raft layer (nats-server
// jetstream_cluster.go, clusterInfo: PeerInfo.Current is the raft peer's
// Current), so a replica whose log is caught up while its store stays
// behind is reported current.
func stuckCurrent(reps []Replica, first Reading, span time.Duration) []checker.Anomaly {
	last := lastSeqs(reps)
	top, firstTop := highest(last), highest(first.LastSeq)
	var out []checker.Anomaly
	for _, rp := range reps {
		s, ok := last[rp.Node]
		f, was := first.LastSeq[rp.Node]
		if !ok || s >= top || !was || f >= firstTop || rp.CalledCurrent == nil || !*rp.CalledCurrent {
			continue
		}
		out = append(out, checker.Anomaly{Kind: KindStuckCurrent, Description: fmt.Sprintf(
			"%s stayed behind for %s of readings (last seq %d, %d below %d at the first reading; %d, %d below %d at the last) while the stream's leader called it current",
			rp.Node, span, f, firstTop-f, firstTop, s, top-s, top)})
	}
	return out
}

func highest(last map[string]uint64) uint64 {
	var top uint64
	for _, s := range last {
		top = max(top, s)
	}
	return top
}

// lateDetail describes the first read's difference by who was behind.
func lateDetail(first Reading) string {
	if b := behindNames(first.LastSeq); len(b) > 0 {
		return "behind: " + strings.Join(b, ", ")
	}
	return first.Summary
}

// behindNames names each replica whose last sequence is below the highest,
// with how far: "n1 (last seq 5, 1 below 6)".
func behindNames(last map[string]uint64) []string {
	top := highest(last)
	var out []string
	for node, s := range last {
		if s < top {
			out = append(out, fmt.Sprintf("%s (last seq %d, %d below %d)", node, s, top-s, top))
		}
	}
	slices.Sort(out)
	return out
}
