package batch

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

func TestIsolationSnapshots(t *testing.T) {
	// x1, y1: plain values; then batch a writes x and y; then z alone;
	// then batch b writes x (its second message is on z).
	msgs := []Stored{
		{Seq: 1, Subject: "x"}, {Seq: 2, Subject: "y"},
		{Seq: 3, Subject: "x", Batch: "a", Index: 1}, {Seq: 4, Subject: "y", Batch: "a", Index: 2},
		{Seq: 5, Subject: "z"},
		{Seq: 6, Subject: "x", Batch: "b", Index: 1}, {Seq: 7, Subject: "z", Batch: "b", Index: 2},
	}
	rb := ReadBack{Msgs: msgs, Complete: true, LastSeq: 7}
	batches := []Batch{acked("a", 2, 4), acked("b", 2, 7)}
	m := func(i int) Stored { return msgs[i-1] }
	xy := []string{"x", "y"}
	for _, tc := range []struct {
		name string
		snap Snapshot
		rb   ReadBack
		want checker.Verdict
		kind string
	}{
		{"before the batch", Snapshot{UpTo: 2, Subjects: xy, Got: []Stored{m(1), m(2)}}, rb, checker.Valid, ""},
		{"after the batch", Snapshot{UpTo: 4, Subjects: xy, Got: []Stored{m(3), m(4)}}, rb, checker.Valid, ""},
		{"up to inside a batch: what was asked", Snapshot{UpTo: 6, Subjects: []string{"x", "z"}, Got: []Stored{m(6), m(5)}}, rb, checker.Valid, ""},
		{"a subject with nothing yet", Snapshot{UpTo: 1, Subjects: xy, Got: []Stored{m(1)}}, rb, checker.Valid, ""},
		{"nothing asked", Snapshot{UpTo: 7}, rb, checker.Valid, ""},

		{"the batch on x, the old value on y", Snapshot{UpTo: 4, Subjects: xy, Got: []Stored{m(3), m(2)}}, rb, checker.Invalid, "mixed"},
		{"the batch on y, nothing on x", Snapshot{UpTo: 7, Subjects: xy, Got: []Stored{m(4)}}, rb, checker.Invalid, "missing"},
		{"a plain value on z, nothing on x", Snapshot{UpTo: 5, Subjects: []string{"x", "z"}, Got: []Stored{m(5)}}, rb, checker.Invalid, "missing"},
		{"no results though x holds a message", Snapshot{UpTo: 4, Subjects: xy}, rb, checker.Invalid, "no_results"},
		{"no results before any message", Snapshot{UpTo: 7, Subjects: []string{"w"}}, rb, checker.Valid, ""},
		{"x answered, y's first message after it", Snapshot{UpTo: 1, Subjects: xy, Got: []Stored{m(1)}}, rb, checker.Valid, ""},
		{"a message after the sequence asked", Snapshot{UpTo: 2, Subjects: xy, Got: []Stored{m(3), m(2)}}, rb, checker.Invalid, "beyond"},

		{"asked past where the read-back stopped", Snapshot{UpTo: 7, Subjects: xy, Got: []Stored{m(6), m(4)}},
			ReadBack{Msgs: msgs[:4], LastSeq: 4, Detail: "read 4 of 7"}, checker.Unknown, "unread"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.snap.Reader, tc.snap.Op = "r", -1
			r := Isolation(batches, tc.rb, nil, []Snapshot{tc.snap}, 0)
			if r.Verdict != tc.want || r.Counts["snapshots"] != 1 {
				t.Fatalf("verdict %s (want %s): %s; %v", r.Verdict, tc.want, r.Summary, r.Counts)
			}
			if tc.kind != "" && r.Counts[tc.kind] == 0 {
				t.Errorf("no %s counted: %v", tc.kind, r.Counts)
			}
			if tc.want == checker.Invalid && !strings.HasPrefix(r.Anomalies[0].Description, "reader r, a read of ") {
				t.Errorf("example %+v", r.Anomalies)
			}
		})
	}
}
