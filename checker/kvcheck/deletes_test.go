package kvcheck

import (
	"path/filepath"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The delete fixtures live in testdata/deletes as triples: NAME.jsonl (the
// ops), NAME.stream.jsonl (what the observers saw: the checkers' stream)
// and NAME.final.jsonl (the read-back after the heal, one revision per key
// unless the case keeps all).
func loadDeleteFixture(t testing.TB, name string) (history.History, Final) {
	t.Helper()
	dir := filepath.Join("testdata", "deletes")
	ops, err := history.ReadOps(filepath.Join(dir, name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	observed, complete, err := history.ReadStream(filepath.Join(dir, name+".stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	final, finalComplete, err := history.ReadStream(filepath.Join(dir, name+".final.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return history.History{Ops: ops, Stream: observed, StreamComplete: complete},
		Final{Entries: final, Complete: finalComplete, PerKey: 1, Observed: observed}
}

func TestDeleteFixtures(t *testing.T) {
	cases := []struct {
		name string
		// verdicts of the checkers that must not be valid.
		verdicts map[string]checker.Verdict
		counts   map[string]map[string]int
		keepAll  bool // the bucket keeps every revision
	}{
		{"deletes_clean", nil, map[string]map[string]int{
			NameDeletes:   {CountMarkers: 2, CountCreatesAfterMarker: 2, CountResurrectedRead: 0, CountDeleteNotHonoured: 0, CountCreateOverLiveKey: 0},
			NameRetention: {CountKeys: 2, CountLastValueLost: 0, CountRetainedExtra: 0},
			NameIntegrity: {CountAckedWrites: 6, "gets_checked": 7, CountUnexpectedTombstone: 0, CountBadRead: 0},
			NameStaleRead: {CountGets: 8, CountStaleReads: 0},
		}, false},
		{"delete_not_honoured", map[string]checker.Verdict{NameDeletes: checker.Invalid, NameRetention: checker.Invalid}, map[string]map[string]int{
			NameDeletes:   {CountDeleteNotHonoured: 1, CountResurrectedRead: 0},
			NameRetention: {CountLastValueLost: 1, CountRetainedExtra: 0}, // the marker lost, the value it kept no second anomaly
		}, false},
		{"resurrected_read", map[string]checker.Verdict{NameDeletes: checker.Invalid, NameStaleRead: checker.Invalid, NameLinearizability: checker.Invalid}, map[string]map[string]int{
			NameDeletes:   {CountResurrectedRead: 1, CountDeleteNotHonoured: 0},
			NameStaleRead: {CountStaleReads: 1},
		}, false},
		{"create_over_live_key", map[string]checker.Verdict{NameDeletes: checker.Invalid, NameLinearizability: checker.Invalid, NameIntegrity: checker.Invalid}, map[string]map[string]int{
			NameDeletes:   {CountCreateOverLiveKey: 1, CountCreatesAfterMarker: 0},
			NameIntegrity: {CountCASViolation: 1},
		}, false},
		// A keep-all bucket whose read-back stopped before the delete's
		// marker: the value it holds may or may not have survived.
		{"incomplete_readback", map[string]checker.Verdict{NameDeletes: checker.Unknown, NameRetention: checker.Unknown}, map[string]map[string]int{
			NameDeletes: {CountMarkers: 1, CountUnverifiedDeletes: 1, CountDeleteNotHonoured: 0},
		}, true},
		// A read-back not read in full confirms a key's markers only where
		// it holds a message of the key at or after the newest, or reached
		// past it: the read-back failed (kv/i1min_readback_failed); a
		// keep-all read-back stopped at the older of two markers (the value
		// between them may survive unread); one that stopped past the
		// marker, holding nothing of its key.
		{"readback_failed_marker", map[string]checker.Verdict{NameDeletes: checker.Unknown, NameRetention: checker.Unknown}, map[string]map[string]int{
			NameDeletes: {CountMarkers: 1, CountUnconfirmedDeletes: 1, CountUnverifiedDeletes: 0},
		}, false},
		{"readback_older_marker", map[string]checker.Verdict{NameDeletes: checker.Unknown, NameRetention: checker.Unknown}, map[string]map[string]int{
			NameDeletes: {CountMarkers: 2, CountUnconfirmedDeletes: 1, CountUnverifiedDeletes: 0},
		}, true},
		{"readback_past_marker", map[string]checker.Verdict{NameRetention: checker.Unknown}, map[string]map[string]int{
			NameDeletes: {CountMarkers: 1, CountUnconfirmedDeletes: 0, CountUnverifiedDeletes: 0},
		}, false},
		// A delete that timed out, which a get saw applied at a sequence the
		// observers missed; a create follows, over its marker.
		{"info_delete_seen_by_get", map[string]checker.Verdict{NameIntegrity: checker.Unknown}, map[string]map[string]int{
			NameDeletes: {CountSettledMarkers: 1, CountCreatesAfterMarker: 1, CountCreateOverLiveKey: 0, CountUnverifiedCreates: 0},
		}, false},
		// An update that timed out, which a get saw applied at a sequence
		// the observers missed; a create follows, over its live value.
		// stream-integrity places the update there by the same settlement
		// and finds the create over it (it was unknown before it did).
		{"create_over_info_value", map[string]checker.Verdict{NameDeletes: checker.Invalid, NameLinearizability: checker.Invalid, NameIntegrity: checker.Invalid},
			map[string]map[string]int{
				NameDeletes:   {CountCreateOverLiveKey: 1, CountCreatesAfterMarker: 0, CountUnverifiedCreates: 0},
				NameIntegrity: {CountCASViolation: 1, CountSettledUnseen: 1, "unverifiable_cas": 0},
			}, false},
		// A delete that timed out, which the stream settled as applied; the
		// value it deleted is what the read-back holds.
		{"info_delete_not_honoured", map[string]checker.Verdict{NameDeletes: checker.Invalid, NameRetention: checker.Invalid}, map[string]map[string]int{
			NameDeletes:   {CountMarkers: 0, CountSettledMarkers: 1, CountDeleteNotHonoured: 1},
			NameRetention: {CountLastValueLost: 1},
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, final := loadDeleteFixture(t, c.name)
			if c.keepAll {
				final.PerKey = 0
			}
			opts := checker.Options{}
			checks := append(All(opts), NewRetention(opts, final), NewDeletes(opts, final))
			for _, r := range Run(h, checks) {
				want, named := c.verdicts[r.Name]
				if !named {
					want = checker.Valid
				}
				if r.Verdict != want {
					t.Errorf("%s: %s (%s %s), want %s", r.Name, r.Verdict, r.Summary, r.Reason, want)
				}
				for k, n := range c.counts[r.Name] {
					if got, ok := r.Counts[k]; !ok || got != n {
						t.Errorf("%s: count %s = %d (present %v), want %d", r.Name, k, got, ok, n)
					}
				}
			}
		})
	}
}

// The judgements that do not need the read-back are made whether it was
// read in full or not, and an anomaly they find outweighs what the
// read-back leaves undecided.
func TestDeletesWithoutTheReadBack(t *testing.T) {
	resurrect := func(h *history.History) {
		h.Ops = append(h.Ops, history.Op{Client: 1, Node: "n2", Type: history.Get, Key: "k0", Value: "c0-1", Rev: 1,
			Outcome: history.OK, Invoke: 9_000_000, Complete: 10_000_000})
	}
	for _, c := range []struct {
		name   string
		change func(h *history.History)
		counts map[string]int
	}{
		{"resurrected_read", nil, map[string]int{CountResurrectedRead: 1}},
		{"create_over_live_key", nil, map[string]int{CountCreateOverLiveKey: 1}},
		{"incomplete_readback", resurrect, map[string]int{CountResurrectedRead: 1, CountUnverifiedDeletes: 1}},
	} {
		h, final := loadDeleteFixture(t, c.name)
		final.Complete = false
		if c.change != nil {
			c.change(&h)
		}
		r := NewDeletes(checker.Options{}, final).Check(h)
		if r.Verdict != checker.Invalid {
			t.Errorf("%s with the read-back incomplete: %s (%s)", c.name, r.Verdict, r.Summary)
		}
		for k, n := range c.counts {
			if r.Counts[k] != n {
				t.Errorf("%s with the read-back incomplete: count %s = %d, want %d", c.name, k, r.Counts[k], n)
			}
		}
	}
}

// An indeterminate write that nothing settled may or may not have
// happened: without the get that saw it, info_delete_seen_by_get's
// delete leaves its create unverified and create_over_info_value's update
// leaves its create over the marker; no checker calls either invalid.
func TestIndeterminateWritesLeftOpen(t *testing.T) {
	for _, c := range []struct {
		name    string
		get     int    // the get that settled the write, dropped
		settled string // the value it read: the write's
		deletes checker.Verdict
		count   string // deletes' count of the create
	}{
		{"info_delete_seen_by_get", 4, "c0-2", checker.Unknown, CountUnverifiedCreates},
		{"create_over_info_value", 3, "c1-1", checker.Valid, CountCreatesAfterMarker},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, final := loadDeleteFixture(t, c.name)
			if g := h.Ops[c.get]; g.Type != history.Get || g.Value != c.settled {
				t.Fatalf("op %d is not the settling get: %+v", c.get, g)
			}
			h.Ops = append(h.Ops[:c.get:c.get], h.Ops[c.get+1:]...)
			opts := checker.Options{}
			for _, r := range Run(h, append(All(opts), NewRetention(opts, final), NewDeletes(opts, final))) {
				if r.Verdict == checker.Invalid {
					t.Errorf("%s: invalid (%s)", r.Name, r.Summary)
				}
				if r.Name != NameDeletes {
					continue
				}
				if r.Verdict != c.deletes || r.Counts[c.count] != 1 || r.Counts[CountSettledMarkers] != 0 {
					t.Errorf("deletes: %s (%s %s), counts %v; want %s and %s 1", r.Verdict, r.Summary, r.Reason, r.Counts, c.deletes, c.count)
				}
			}
		})
	}
}

// A create over a live key names the write of the live value, whether the
// observers saw it or not.
func TestCreateOverLiveKeyNamesTheValue(t *testing.T) {
	for _, c := range []struct{ name, live string }{
		{"create_over_live_key", "c0-1"},
		{"create_over_info_value", "c1-1"},
	} {
		h, final := loadDeleteFixture(t, c.name)
		r := NewDeletes(checker.Options{}, final).Check(h)
		if len(r.Anomalies) != 1 || len(r.Anomalies[0].Ops) != 2 || r.Anomalies[0].Ops[0].Op.Value != c.live {
			t.Errorf("%s: anomalies %+v, want the create and the write of %s", c.name, r.Anomalies, c.live)
		}
	}
}

// A create stored after a value, with a sequence between them that the
// observers missed, may follow a delete marker stored there: unverifiable,
// not a CAS violation, for every checker.
func TestCreateAfterAnUnseenSequence(t *testing.T) {
	ms := int64(1_000_000)
	op := func(typ history.OpType, value string, rev uint64, inv int64) history.Op {
		return history.Op{Client: 0, Node: "n1", Type: typ, Key: "k0", Value: value, Rev: rev, Outcome: history.OK,
			Invoke: inv * ms, Complete: (inv + 1) * ms}
	}
	ops := []history.Op{op(history.Create, "c0-1", 1, 1), op(history.Delete, "c0-2", 2, 3), op(history.Create, "c0-3", 3, 5)}
	stream := []history.Entry{{Seq: 1, Key: "k0", Value: "c0-1"}, {Seq: 3, Key: "k0", Value: "c0-3"}}
	h := history.History{Ops: ops, Stream: stream} // incomplete: seq 2 was not seen
	in := NewIntegrity(checker.Options{}).Check(h)
	if in.Counts[CountCASViolation] != 0 || in.Counts["unverifiable_cas"] != 1 || in.Verdict != checker.Unknown {
		t.Errorf("integrity: %s %s, counts %v", in.Verdict, in.Summary, in.Counts)
	}
	final := Final{Entries: stream[1:], Complete: true, PerKey: 1, Observed: stream}
	de := NewDeletes(checker.Options{}, final).Check(h)
	if de.Verdict != checker.Valid || de.Counts[CountCreatesAfterMarker] != 1 {
		t.Errorf("deletes: %s %s, counts %v", de.Verdict, de.Summary, de.Counts)
	}
	// The same with the stream complete and the marker in it is clean.
	h.Stream = []history.Entry{stream[0], {Seq: 2, Key: "k0", Value: "c0-2", Operation: "del"}, stream[1]}
	h.StreamComplete = true
	if in := NewIntegrity(checker.Options{}).Check(h); in.Verdict != checker.Valid {
		t.Errorf("integrity on the complete stream: %s %s", in.Verdict, in.Summary)
	}
}

// The model's not-found get with a revision: legal only at a marker, with
// that marker's id. Cases tighten cannot place (the get names no pinned
// write) reach the step function itself.
func TestMarkerModel(t *testing.T) {
	ms := int64(1_000_000)
	base := []history.Op{
		{Client: 0, Type: history.Create, Key: "k", Value: "c0-1", Rev: 1, Outcome: history.OK, Invoke: 1 * ms, Complete: 2 * ms},
		{Client: 0, Type: history.Delete, Key: "k", Value: "c0-2", Rev: 2, Outcome: history.OK, Invoke: 3 * ms, Complete: 4 * ms},
	}
	get := func(rev uint64, value string) history.Op {
		return history.Op{Client: 1, Type: history.Get, Key: "k", Rev: rev, Value: value, Err: history.ErrNotFound,
			Outcome: history.OK, Invoke: 5 * ms, Complete: 6 * ms}
	}
	stream := []history.Entry{{Seq: 1, Key: "k", Value: "c0-1"}, {Seq: 2, Key: "k", Value: "c0-2", Operation: "del"}}
	for _, c := range []struct {
		name string
		get  history.Op
		want checker.Verdict
	}{
		{"the marker it saw", get(2, "c0-2"), checker.Valid},
		{"another marker's id at its revision", get(2, "c9-9"), checker.Invalid},
		{"not found at a value's revision", get(1, ""), checker.Invalid},
		{"never written, after a delete", get(0, ""), checker.Invalid},
	} {
		h := history.History{Ops: append(append([]history.Op(nil), base...), c.get), Stream: stream, StreamComplete: true}
		if r := NewLinearizability(checker.Options{MaxVisualizations: -1}).Check(h); r.Verdict != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, r.Verdict, r.Summary, c.want)
		}
	}
}
