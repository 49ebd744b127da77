package batch

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// stream lays messages out from sequence 1: "a1" is place 1 of batch a,
// "-" a message of no batch.
func stream(msgs ...string) []Stored {
	out := make([]Stored, len(msgs))
	for i, m := range msgs {
		out[i].Seq = uint64(i + 1)
		if m != "-" {
			out[i].Batch, out[i].Index = m[:1], int(m[1]-'0')
		}
	}
	return out
}

func acked(id string, size int, seq uint64) Batch {
	return Batch{ID: id, Kind: KindCommit, Size: size, Outcome: history.OK, AckSeq: seq, Op: -1}
}

func plain(id string, o history.Outcome, ackSeq uint64) Batch {
	return Batch{ID: id, Kind: KindPlain, Size: 1, Outcome: o, AckSeq: ackSeq, Op: -1}
}

func tried(id string, kind Kind, size int, o history.Outcome) Batch {
	return Batch{ID: id, Kind: kind, Size: size, Outcome: o, Op: -1}
}

// asPlain makes every message of no batch ("-") in rb a plain message of
// its own, acknowledged at its sequence, and returns those plain
// publishes: the fixtures' filler between batches, as the workload
// publishes it.
func asPlain(rb ReadBack) (ReadBack, []Batch) {
	msgs := slices.Clone(rb.Msgs)
	var plains []Batch
	for i, m := range msgs {
		if m.Batch == "" {
			id := "-" + strconv.FormatUint(m.Seq, 10)
			msgs[i].Batch, msgs[i].Index = id, 1
			plains = append(plains, Batch{ID: id, Kind: KindPlain, Size: 1, Outcome: history.OK, AckSeq: m.Seq, Op: -1})
		}
	}
	rb.Msgs = msgs
	return rb, plains
}

func complete(msgs ...string) ReadBack {
	s := stream(msgs...)
	return ReadBack{Msgs: s, Complete: true, LastSeq: uint64(len(s))}
}

func TestAtomic(t *testing.T) {
	for _, tc := range []struct {
		name    string
		batches []Batch
		rb      ReadBack
		want    checker.Verdict
		kind    string // the anomaly (invalid) or the undecided case (unknown)
	}{
		{"nothing tried, nothing stored", nil, complete(), checker.Valid, ""},
		{"whole, refused, abandoned, indeterminate both ways, plain messages between", []Batch{
			acked("a", 3, 4), tried("r", KindWrongLastSeq, 2, history.Fail), tried("d", KindDuplicateID, 2, history.Fail),
			tried("x", KindAbandoned, 4, history.Fail), tried("i", KindCommit, 2, history.Info), tried("j", KindCommit, 3, history.Info),
			acked("s", 1, 8),
		}, complete("-", "a1", "a2", "a3", "-", "i1", "i2", "s1"), checker.Valid, ""},

		{"acknowledged, stored in part", []Batch{acked("a", 3, 2)}, complete("a1", "a2"), checker.Invalid, "partial"},
		{"indeterminate, stored in part", []Batch{tried("i", KindCommit, 3, history.Info)}, complete("i1", "-", "i3"), checker.Invalid, "partial"},
		{"acknowledged, absent", []Batch{acked("a", 2, 3)}, complete("-", "-", "-"), checker.Invalid, "acknowledged_absent"},
		{"refused, stored whole", []Batch{tried("r", KindWrongLastSeq, 2, history.Fail)}, complete("r1", "r2"), checker.Invalid, "refused_stored"},
		{"abandoned, stored whole", []Batch{tried("x", KindAbandoned, 1, history.Fail)}, complete("x1"), checker.Invalid, "refused_stored"},
		{"another message inside a batch", []Batch{acked("a", 2, 3)}, complete("a1", "-", "a2"), checker.Invalid, "not_contiguous"},
		{"two batches interleaved", []Batch{acked("a", 2, 3), acked("b", 2, 4)}, complete("a1", "b1", "a2", "b2"), checker.Invalid, "not_contiguous"},
		{"stored out of order", []Batch{acked("a", 2, 2)}, complete("a2", "a1"), checker.Invalid, "out_of_order"},
		{"a place beyond the batch", []Batch{acked("a", 2, 3)}, complete("a1", "a2", "a3"), checker.Invalid, "out_of_order"},
		{"a message stored twice", []Batch{acked("a", 2, 3)}, complete("a1", "a2", "a2"), checker.Invalid, "stored_twice"},
		{"acknowledged at another sequence", []Batch{acked("a", 2, 3)}, complete("a1", "a2", "-"), checker.Invalid, "ack_elsewhere"},
		{"a batch nobody tried", nil, complete("z1"), checker.Invalid, "unknown_batch"},
		{"a plain message acknowledged, stored", []Batch{plain("p", history.OK, 2)}, complete("-", "p1"), checker.Valid, ""},
		{"a plain message indeterminate, stored or not", []Batch{plain("p", history.Info, 0), plain("q", history.Info, 0)}, complete("p1"), checker.Valid, ""},
		{"a plain message acknowledged, lost", []Batch{plain("p", history.OK, 1)}, complete(), checker.Invalid, "acknowledged_absent"},
		{"a plain message refused, stored", []Batch{plain("p", history.Fail, 0)}, complete("p1"), checker.Invalid, "refused_stored"},
		{"a plain message retried, stored twice", []Batch{plain("p", history.OK, 1)}, complete("p1", "-", "p1"), checker.Invalid, "stored_twice"},

		{"the read stopped before an acknowledged batch", []Batch{acked("a", 2, 5)},
			ReadBack{Msgs: stream("-", "-"), LastSeq: 2, Detail: "read 2 of 5 within 1s"}, checker.Unknown, "unread"},
		{"the read stopped inside a batch", []Batch{acked("a", 3, 4)},
			ReadBack{Msgs: stream("-", "a1", "a2"), LastSeq: 3}, checker.Unknown, "unread"},
		{"the read stopped, but past what it proves", []Batch{acked("a", 2, 2), acked("b", 2, 9)},
			ReadBack{Msgs: stream("-", "-", "-"), LastSeq: 3}, checker.Invalid, "acknowledged_absent"},
		{"the read stopped, but after a batch cut in two", []Batch{acked("a", 3, 3)},
			ReadBack{Msgs: stream("a1", "a3", "-"), LastSeq: 3}, checker.Invalid, "partial"},
		{"a batch of no messages in the history", []Batch{acked("a", 0, 1)}, complete(), checker.Unknown, "malformed_batch"},
		{"the read stopped: a refused batch may lie past it", []Batch{tried("r", KindWrongLastSeq, 2, history.Fail)},
			ReadBack{Msgs: stream("-"), LastSeq: 1, Detail: "read 1 of 3"}, checker.Unknown, "unread"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rb, plains := asPlain(tc.rb)
			r := Atomic(append(slices.Clone(tc.batches), plains...), rb, 0)
			if r.Verdict != tc.want || r.Name != CheckAtomic || r.Summary == "" {
				t.Fatalf("verdict %s (want %s): %s; counts %v", r.Verdict, tc.want, r.Summary, r.Counts)
			}
			if tc.kind != "" && r.Counts[tc.kind] == 0 {
				t.Errorf("no %s counted: %v", tc.kind, r.Counts)
			}
			if tc.want == checker.Invalid && (len(r.Anomalies) == 0 || !strings.Contains(r.Anomalies[0].Description, "batch ")) {
				t.Errorf("no example naming the batch: %+v", r.Anomalies)
			}
			if tc.want == checker.Unknown && r.Reason == "" {
				t.Errorf("unknown without a reason: %+v", r)
			}
		})
	}
}

// A batch whose middle is missing is partial, and only that: the hole in
// its sequences is the missing messages, not a second anomaly. A hole
// wider than what is missing is both.
func TestAtomicHoleIsPartialAlone(t *testing.T) {
	rb, plains := asPlain(complete("a1", "-", "a3"))
	r := Atomic(append(plains, acked("a", 3, 3)), rb, 0)
	if r.Counts["partial"] != 1 || r.Counts["not_contiguous"] != 0 || len(r.Anomalies) != 1 {
		t.Errorf("counts %v, anomalies %+v", r.Counts, r.Anomalies)
	}
	rb, plains = asPlain(complete("a1", "-", "-", "a3"))
	r = Atomic(append(plains, acked("a", 3, 4)), rb, 0)
	if r.Counts["partial"] != 1 || r.Counts["not_contiguous"] != 1 {
		t.Errorf("a wider hole: counts %v", r.Counts)
	}
}

// The clean fixture's counts: what was looked at, said in the summary.
func TestAtomicCounts(t *testing.T) {
	r := Atomic([]Batch{acked("a", 2, 2), tried("r", KindWrongLastSeq, 2, history.Fail), tried("i", KindCommit, 1, history.Info),
		plain("p", history.OK, 3)}, complete("a1", "a2", "p1"), 0)
	if r.Counts["whole"] != 2 || r.Counts["absent"] != 2 || r.Counts["acknowledged"] != 2 ||
		r.Summary != "4 batches: 2 stored whole, 2 wholly absent" {
		t.Errorf("counts %v, summary %q", r.Counts, r.Summary)
	}
	r = Atomic([]Batch{acked("a", 3, 2), acked("b", 2, 4)}, complete("a1", "a3", "b1", "-", "b2"), 0)
	if !strings.HasPrefix(r.Summary, "2 batches broke all-or-nothing: partial 1, not contiguous 1") {
		t.Errorf("summary %q", r.Summary)
	}
}

// A message that names no batch is unexpected: the workload publishes
// nothing else. A plain message stored twice apart is stored_twice alone,
// not also a batch out of its sequences.
func TestAtomicUnexpectedAndDuplicateMessages(t *testing.T) {
	r := Atomic([]Batch{acked("a", 2, 2)}, complete("a1", "a2", "-"), 0)
	if r.Verdict != checker.Invalid || r.Counts["unknown_message"] != 1 || len(r.Anomalies) != 1 ||
		!strings.Contains(r.Anomalies[0].Description, "sequence 3") || !strings.HasPrefix(r.Summary, "the stream holds messages no producer published") {
		t.Errorf("%s %q %v %+v", r.Verdict, r.Summary, r.Counts, r.Anomalies)
	}
	rb, plains := asPlain(complete("p1", "-", "p1"))
	r = Atomic(append(plains, plain("p", history.OK, 1)), rb, 0)
	if r.Counts["stored_twice"] != 1 || r.Counts["not_contiguous"] != 0 {
		t.Errorf("counts %v", r.Counts)
	}
}

// A refused batch stored whole names what its commit was answered, and
// its example names the batch's op.
func TestRefusedStoredNamesTheAnswer(t *testing.T) {
	x := tried("r", KindCommit, 2, history.Fail)
	x.Op, x.ErrCode, x.ErrMsg = 7, 10008, "JetStream system temporarily unavailable"
	r := Atomic([]Batch{x}, complete("r1", "r2"), 0)
	if r.Counts["refused_stored"] != 1 || len(r.Anomalies) != 1 || len(r.Anomalies[0].Ops) != 1 || r.Anomalies[0].Ops[0].Index != 7 ||
		!strings.Contains(r.Anomalies[0].Description, `(answered error 10008, "JetStream system temporarily unavailable")`) {
		t.Errorf("%v %+v", r.Counts, r.Anomalies)
	}
}
