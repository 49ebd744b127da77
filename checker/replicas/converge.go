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
// Counts: CheckDivergence's, plus reads, converge_ms and replicas_behind.
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
	default:
		if first.Differ {
			r.Counts[CountConvergeMs] = int(span.Milliseconds())
			r.Summary += fmt.Sprintf("; late, not diverged: they agreed at read %d, %s after the first, which found %s",
				len(reads), span, lateDetail(first))
		}
	}
	return r
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
	var top uint64
	for _, s := range last {
		top = max(top, s)
	}
	var out []string
	for node, s := range last {
		if s < top {
			out = append(out, fmt.Sprintf("%s (last seq %d, %d below %d)", node, s, top-s, top))
		}
	}
	slices.Sort(out)
	return out
}
