package replicas

import (
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// TestCheckConverged: replicas that differed at the first read and agreed
// later were late, never diverged; replicas still differing at the last
// read diverged, and the ones behind are named; a server that holds no copy
// and is not a peer of the stream takes no part.
func TestCheckConverged(t *testing.T) {
	a := history.Entry{Seq: 3, Key: "k0", Value: "c0-1"}
	b := history.Entry{Seq: 4, Key: "k0", Value: "c0-2"}
	agree := []Replica{replicaOf("n1", a, b), replicaOf("n2", a, b), replicaOf("n3", a, b)}
	behind := []Replica{replicaOf("n1", a), replicaOf("n2", a, b), replicaOf("n3", a, b)}
	noCopy := Replica{Node: "n3", NotReplica: true}
	lateRead := ReadingOf(behind, 0, checker.Options{})
	yes, no := true, false
	calledBehind := func(called *bool) []Replica {
		reps := []Replica{replicaOf("n1", a), replicaOf("n2", a, b), replicaOf("n3", a, b)}
		reps[0].CalledCurrent = called
		return reps
	}
	cases := []struct {
		name    string
		reps    []Replica
		reads   []Reading
		verdict checker.Verdict
		counts  map[string]int
		summary string
	}{
		{"one read, agree", agree, []Reading{ReadingOf(agree, 0, checker.Options{})}, checker.Valid,
			map[string]int{CountReads: 1, CountReplicasBehind: 0}, "all 3 replicas"},
		{"stored before reads were kept", agree, nil, checker.Valid, map[string]int{CountReads: 1}, "all 3 replicas"},
		{"late, then agree", agree, []Reading{lateRead, ReadingOf(agree, 2100*time.Millisecond, checker.Options{})}, checker.Valid,
			map[string]int{CountReads: 2, CountConvergeMs: 2100, CountReplicasBehind: 0},
			"late, not diverged: they agreed at read 2, 2.1s after the first, which found behind: n1 (last seq 3, 1 below 4)"},
		{"behind to the end", behind, []Reading{lateRead, ReadingOf(behind, 30*time.Second, checker.Options{})}, checker.Invalid,
			map[string]int{CountReads: 2, CountReplicasBehind: 1, CountMissingMsgs: 1},
			"still so after 2 reads over 30s, behind: n1 (last seq 3, 1 below 4)"},
		{"stuck while called current", calledBehind(&yes), []Reading{lateRead, ReadingOf(behind, 30*time.Second, checker.Options{})},
			checker.Invalid, map[string]int{KindStuckCurrent: 1, CountReplicasBehind: 1},
			"1 of them stuck behind while the stream's leader called them current"},
		{"behind and called not current", calledBehind(&no), []Reading{lateRead, ReadingOf(behind, 30*time.Second, checker.Options{})},
			checker.Invalid, map[string]int{KindStuckCurrent: 0, CountReplicasBehind: 1}, "still so after 2 reads"},
		{"behind, not asked (stored before)", calledBehind(nil), []Reading{lateRead, ReadingOf(behind, 30*time.Second, checker.Options{})},
			checker.Invalid, map[string]int{KindStuckCurrent: 0}, "still so after 2 reads"},
		{"behind only at the last read", calledBehind(&yes), []Reading{ReadingOf(agree, 0, checker.Options{}), ReadingOf(behind, 3*time.Second, checker.Options{})},
			checker.Invalid, map[string]int{KindStuckCurrent: 0, CountReplicasBehind: 1}, "still so after 2 reads"},
		{"called current and caught up: late", agreeCalled(agree, &yes), []Reading{lateRead, ReadingOf(agree, 4100*time.Millisecond, checker.Options{})},
			checker.Valid, map[string]int{KindStuckCurrent: 0, CountConvergeMs: 4100}, "late, not diverged"},
		{"behind, one read", behind, nil, checker.Invalid, map[string]int{CountReplicasBehind: 1}, "; behind: n1"},
		{"a server with no copy is not a replica", []Replica{replicaOf("n1", a, b), replicaOf("n2", a, b), noCopy}, nil, checker.Valid,
			map[string]int{CountReplicas: 2, CountReplicasRead: 2}, "(n3: no copy, not a replica of the stream)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := CheckConverged(c.reps, c.reads, checker.Options{})
			if r.Verdict != c.verdict {
				t.Fatalf("verdict %s (%s), want %s", r.Verdict, r.Summary, c.verdict)
			}
			for k, v := range c.counts {
				if r.Counts[k] != v {
					t.Errorf("count %s = %d, want %d (%v)", k, r.Counts[k], v, r.Counts)
				}
			}
			if !strings.Contains(r.Summary, c.summary) {
				t.Errorf("summary %q, want it to hold %q", r.Summary, c.summary)
			}
			stuck := 0
			for _, a := range r.Anomalies {
				if a.Kind == KindStuckCurrent {
					stuck++
					if !strings.Contains(a.Description, "n1 stayed behind for 30s of readings") {
						t.Errorf("stuck example %q does not name n1 and the span", a.Description)
					}
				}
			}
			if stuck != c.counts[KindStuckCurrent] {
				t.Errorf("%d stuck_current examples, want %d", stuck, c.counts[KindStuckCurrent])
			}
		})
	}
}

func agreeCalled(reps []Replica, called *bool) []Replica {
	out := append([]Replica(nil), reps...)
	for i := range out {
		out[i].CalledCurrent = called
	}
	return out
}
