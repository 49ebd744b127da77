package counter

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

func acked(client int, total, invoke, complete int64) Add {
	return Add{ID: "x", Counter: "c", Delta: 1, Outcome: history.OK, Total: total, Told: true, Attempts: 1, Client: client, Invoke: invoke, Complete: complete, Op: -1}
}

func readAt(client int, value, invoke, complete int64, direct bool) Read {
	return Read{Counter: "c", Value: value, Direct: direct, Node: "n1", Client: client, Invoke: invoke, Complete: complete, Op: -1}
}

// A read may not go below what its own client was told or had read, by the
// project's rule of time (strictly before), with ties and zero-length ops
// on the clean side.
func TestReads(t *testing.T) {
	for _, tc := range []struct {
		name  string
		adds  []Add
		reads []Read
		want  checker.Verdict
		kind  string
	}{
		{"nothing read", []Add{acked(0, 5, 1, 10)}, nil, checker.Valid, ""},
		{"at and above its own ack", []Add{acked(0, 5, 1, 10)}, []Read{readAt(0, 5, 11, 12, false), readAt(0, 7, 13, 14, true)}, checker.Valid, ""},
		{"a tie: the ack ends as the read begins", []Add{acked(0, 5, 1, 10)}, []Read{readAt(0, 4, 10, 12, false)}, checker.Valid, ""},
		{"zero-length reads", nil, []Read{readAt(0, 5, 20, 20, false), readAt(0, 5, 21, 21, false), readAt(0, 5, 21, 21, true)}, checker.Valid, ""},
		{"a tie between zero-length reads", nil, []Read{readAt(0, 6, 21, 21, false), readAt(0, 5, 21, 21, false)}, checker.Valid, ""},
		{"a zero-length read after another", nil, []Read{readAt(0, 5, 20, 20, false), readAt(0, 4, 21, 21, true)}, checker.Invalid, "stale_read"},
		{"overlapping reads may disagree", nil, []Read{readAt(0, 6, 10, 20, false), readAt(0, 5, 15, 25, false)}, checker.Valid, ""},
		{"another client's ack binds nobody else", []Add{acked(1, 9, 1, 10)}, []Read{readAt(0, 5, 11, 12, false)}, checker.Valid, ""},
		{"a duplicate's ack names no total", []Add{{Counter: "c", Outcome: history.OK, Total: 9, Complete: 10, Op: -1}}, []Read{readAt(0, 5, 11, 12, false)}, checker.Valid, ""},
		{"another counter's", []Add{{Counter: "d", Outcome: history.OK, Total: 9, Told: true, Complete: 10, Op: -1}}, []Read{readAt(0, 5, 11, 12, false)}, checker.Valid, ""},

		{"below its own ack, from the leader", []Add{acked(0, 5, 1, 10)}, []Read{readAt(0, 4, 11, 12, false)}, checker.Invalid, "read_your_writes"},
		{"below its earlier read, from the leader", nil, []Read{readAt(0, 6, 11, 12, false), readAt(0, 5, 13, 14, false)}, checker.Invalid, "monotonic"},
		{"below its own ack, through Direct Get", []Add{acked(0, 5, 1, 10)}, []Read{readAt(0, 3, 11, 12, true)}, checker.Invalid, "stale_read"},
		{"below its earlier read, through Direct Get", nil, []Read{readAt(0, 6, 11, 12, true), readAt(0, 5, 13, 14, true)}, checker.Invalid, "stale_read"},
		{"from the leader below an earlier Direct Get read", nil, []Read{readAt(0, 6, 11, 12, true), readAt(0, 5, 13, 14, false)}, checker.Invalid, "behind_direct"},
		{"from the leader below earlier reads on both paths", nil, []Read{readAt(0, 6, 1, 2, false), readAt(0, 7, 11, 12, true), readAt(0, 5, 13, 14, false)}, checker.Invalid, "monotonic"},
		{"a tie: the Direct Get read ends as the leader read begins", nil, []Read{readAt(0, 6, 11, 13, true), readAt(0, 5, 13, 14, false)}, checker.Valid, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Reads(tc.adds, tc.reads, 0)
			if r.Verdict != tc.want || r.Name != CheckReads || r.Summary == "" {
				t.Fatalf("%s (want %s): %s %v", r.Verdict, tc.want, r.Summary, r.Counts)
			}
			if r.Counts["reads"] != len(tc.reads) {
				t.Errorf("%d reads counted of %d", r.Counts["reads"], len(tc.reads))
			}
			if tc.kind != "" && (r.Counts[tc.kind] != 1 || len(r.Anomalies) != 1) {
				t.Errorf("want one %s: %v %+v", tc.kind, r.Counts, r.Anomalies)
			}
		})
	}
}

// The example names the client, the counter, the path and what it broke.
func TestReadsSayWhat(t *testing.T) {
	a := acked(0, 5, 1, 10)
	a.Op = 3
	rd := readAt(0, 4, 11, 12, false)
	rd.Op = 4
	r := Reads([]Add{a}, []Read{rd}, 0)
	want := "client 0 read counter c as 4 through the leader (connected to n1), after its own add was acknowledged with a total of 5"
	if r.Anomalies[0].Description != want || len(r.Anomalies[0].Ops) != 2 {
		t.Errorf("%q %+v", r.Anomalies[0].Description, r.Anomalies[0].Ops)
	}
}
