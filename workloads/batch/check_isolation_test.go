package batch

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// reads is what reader r's ordered consumer delivered, in the notation of
// stream: each from sequence 1.
func reads(r string, msgs ...string) []Delivery {
	out := make([]Delivery, len(msgs))
	for i, s := range stream(msgs...) {
		out[i] = Delivery{Reader: r, Seq: s.Seq, Batch: s.Batch, Index: s.Index, Op: -1}
	}
	return out
}

// at moves deliveries to other sequences, as a consumer that skipped would.
func at(ds []Delivery, seqs ...uint64) []Delivery {
	for i := range ds {
		ds[i].Seq = seqs[i]
	}
	return ds
}

func TestIsolation(t *testing.T) {
	two := []Batch{acked("a", 3, 4), acked("b", 2, 6), tried("r", KindWrongLastSeq, 2, history.Fail)}
	stored := complete("-", "a1", "a2", "a3", "b1", "b2", "-")
	for _, tc := range []struct {
		name string
		ds   []Delivery
		rb   ReadBack
		want checker.Verdict
		kind string
	}{
		{"nobody read", nil, stored, checker.Valid, ""},
		{"two readers, whole and in order", append(reads("x", "-", "a1", "a2", "a3", "b1", "b2", "-"), reads("y", "-", "a1", "a2", "a3")...), stored, checker.Valid, ""},
		{"a reader stopped inside a batch", reads("x", "-", "a1", "a2"), stored, checker.Valid, ""},
		{"a batch of one message", reads("x", "s1"), complete("s1"), checker.Valid, ""},

		{"another message inside a batch", at(reads("x", "-", "a1", "-", "a2", "a3"), 1, 2, 7, 3, 4), stored, checker.Invalid, "interleaved"},
		{"a batch's middle skipped", at(reads("x", "-", "a1", "a3", "b1"), 1, 2, 4, 5), stored, checker.Invalid, "interleaved"},
		{"entered a batch after its first message", at(reads("x", "-", "a2", "a3"), 1, 3, 4), stored, checker.Invalid, "interleaved"},
		{"saw a refused batch", reads("x", "r1", "r2"), stored, checker.Invalid, "saw_partial"},
		{"saw a batch the stream holds in part", reads("x", "-", "a1", "a2", "a3"), complete("-", "a1", "a2"), checker.Invalid, "saw_partial"},
		{"saw a batch nobody tried", reads("x", "z1"), complete("z1"), checker.Invalid, "unknown_batch"},

		{"saw a batch past where the read-back stopped", reads("x", "-", "a1", "a2", "a3"), ReadBack{Msgs: stream("-"), LastSeq: 1, Detail: "read 1 of 7"}, checker.Unknown, "unread"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			batches := two
			if strings.Contains(tc.name, "one message") {
				batches = []Batch{acked("s", 1, 1)}
			}
			r := Isolation(batches, tc.rb, tc.ds, nil, 0)
			if r.Verdict != tc.want || r.Name != CheckIsolation || r.Summary == "" {
				t.Fatalf("verdict %s (want %s): %s; counts %v; %+v", r.Verdict, tc.want, r.Summary, r.Counts, r.Anomalies)
			}
			if tc.kind != "" && r.Counts[tc.kind] == 0 {
				t.Errorf("no %s counted: %v", tc.kind, r.Counts)
			}
			if tc.want == checker.Invalid && (len(r.Anomalies) == 0 || !strings.HasPrefix(r.Anomalies[0].Description, "reader x, sequence ")) {
				t.Errorf("no example naming the reader and sequence: %+v", r.Anomalies)
			}
		})
	}
}
