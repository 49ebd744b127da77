package replicas

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

func replicaOf(node string, entries ...history.Entry) Replica {
	st := State{Messages: uint64(len(entries))}
	if len(entries) > 0 {
		st.FirstSeq, st.LastSeq = entries[0].Seq, entries[len(entries)-1].Seq
		st.Deleted = int(st.LastSeq-st.FirstSeq+1) - len(entries)
	}
	return Replica{Node: node, State: &st, Entries: entries, Complete: true}
}

func TestDivergence(t *testing.T) {
	a := history.Entry{Seq: 3, Key: "k0", Value: "c0-1"}
	b := history.Entry{Seq: 7, Key: "k1", Value: "c1-4"}
	m := history.Entry{Seq: 9, Key: "k0", Value: "c0-2", Operation: "del"}
	changed := b
	changed.Value = "c1-5"
	incomplete := replicaOf("n3", a)
	incomplete.State = replicaOf("n3", a, b, m).State // /jsz saw all of it; the read stopped early
	incomplete.Complete, incomplete.Error = false, "no consumer landed on n3"
	noState := replicaOf("n3", a, b, m)
	noState.State = nil
	cases := []struct {
		name    string
		reps    []Replica
		verdict checker.Verdict
		counts  map[string]int
		first   string // in the summary
	}{
		{"same", []Replica{replicaOf("n1", a, b, m), replicaOf("n2", a, b, m), replicaOf("n3", a, b, m)}, checker.Valid,
			map[string]int{CountReplicasRead: 3, CountReplicasDiverged: 0}, ""},
		{"same without jsz", []Replica{replicaOf("n1", a, b, m), replicaOf("n2", a, b, m), noState}, checker.Valid,
			map[string]int{CountStateMismatch: 0}, ""},
		{"empty", []Replica{replicaOf("n1"), replicaOf("n2"), replicaOf("n3")}, checker.Valid, nil, ""},
		{"one value changed", []Replica{replicaOf("n1", a, b, m), replicaOf("n2", a, changed, m), replicaOf("n3", a, b, m)}, checker.Invalid,
			map[string]int{CountDifferentMsgs: 1, CountReplicasDiverged: 1, CountStateMismatch: 0}, "n2 from seq 7"},
		{"one missing", []Replica{replicaOf("n1", a, b, m), replicaOf("n2", a, m), replicaOf("n3", a, b, m)}, checker.Invalid,
			map[string]int{CountMissingMsgs: 1, CountStateMismatch: 1}, "n2 from seq 7"},
		{"one extra", []Replica{replicaOf("n1", a, m), replicaOf("n2", a, m), replicaOf("n3", a, b, m)}, checker.Invalid,
			map[string]int{CountExtraMsgs: 1}, "n3 from seq 7"},
		{"no majority", []Replica{replicaOf("n1", a, b), replicaOf("n2", a, changed)}, checker.Invalid,
			map[string]int{CountDifferentMsgs: 2, CountReplicasDiverged: 2}, "n1 from seq 7, n2 from seq 7"},
		{"state only", []Replica{replicaOf("n1", a), {Node: "n2", State: &State{Messages: 1, FirstSeq: 3, LastSeq: 4, Deleted: 1}, Entries: []history.Entry{a}, Complete: true}}, checker.Invalid,
			map[string]int{CountStateMismatch: 1, CountReplicasDiverged: 0}, ""},
		{"incomplete replica agrees so far", []Replica{replicaOf("n1", a, b, m), replicaOf("n2", a, b, m), incomplete}, checker.Unknown,
			map[string]int{CountReplicasRead: 2}, ""},
		{"one replica", []Replica{replicaOf("n1", a)}, checker.Unknown, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := CheckDivergence(c.reps, checker.Options{})
			if r.Verdict != c.verdict {
				t.Fatalf("verdict %s (%s %s), want %s", r.Verdict, r.Summary, r.Reason, c.verdict)
			}
			for k, n := range c.counts {
				if r.Counts[k] != n {
					t.Errorf("count %s = %d, want %d (%s)", k, r.Counts[k], n, r.Summary)
				}
			}
			if c.first != "" && !strings.Contains(r.Summary, c.first) {
				t.Errorf("summary %q does not name %q", r.Summary, c.first)
			}
		})
	}
}
