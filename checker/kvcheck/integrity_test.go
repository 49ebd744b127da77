package kvcheck

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// One case per branch of stream-integrity: each history has exactly the
// anomaly (or tally) it names, so deleting the branch fails its case.
func TestIntegrityBranches(t *testing.T) {
	// Client 0 creates a@1 and updates it to b@2; client 1 reads a@1.
	base := `{"client":0,"type":"create","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":1000}
{"client":1,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":2000,"complete":3000}
{"client":0,"type":"update","key":"k","value":"b","expected_rev":1,"rev":2,"outcome":"ok","invoke":2000,"complete":3000}`
	a, b := history.Entry{Seq: 1, Key: "k", Value: "a"}, history.Entry{Seq: 2, Key: "k", Value: "b"}
	at := func(e history.Entry, seq uint64) history.Entry { e.Seq = seq; return e }
	entry := func(seq uint64, key, value string) history.Entry {
		return history.Entry{Seq: seq, Key: key, Value: value}
	}
	cases := []struct {
		name     string
		extra    string // ops after base
		stream   []history.Entry
		complete bool
		verdict  checker.Verdict
		counts   map[string]int // anomaly kinds not named must be 0
	}{
		{"clean", "", []history.Entry{a, b}, true, checker.Valid, map[string]int{"acked_writes": 2, "gets_checked": 1, "cas_checked": 2}},
		{"lost write", "", []history.Entry{a}, true, checker.Invalid, map[string]int{"lost_write": 1}},
		{"rev mismatch", "", []history.Entry{a, at(b, 3)}, true, checker.Invalid, map[string]int{"rev_mismatch": 1}},
		{"value nobody wrote", "", []history.Entry{a, b, entry(3, "k", "zz")}, true, checker.Invalid, map[string]int{"unexpected_value": 1}},
		{"value written to another key", `{"client":2,"type":"put","key":"j","value":"p","rev":3,"outcome":"ok","invoke":0,"complete":9000}`,
			[]history.Entry{a, b, entry(3, "k", "p")}, true, checker.Invalid, map[string]int{"unexpected_value": 1, "rev_mismatch": 1}},
		{"failed write applied", `{"client":1,"type":"update","key":"k","value":"c","expected_rev":2,"outcome":"fail","err":"no_responders","invoke":4000,"complete":5000}`,
			[]history.Entry{a, b, entry(3, "k", "c")}, true, checker.Invalid, map[string]int{"failed_write_applied": 1}},
		{"value stored twice", "", []history.Entry{a, b, at(b, 3)}, true, checker.Invalid, map[string]int{"duplicate_value": 1}},
		{"tombstone", "", []history.Entry{a, b, {Seq: 3, Key: "k", Operation: "del"}}, true, checker.Invalid, map[string]int{"unexpected_tombstone": 1}},
		{"read of another value", `{"client":1,"type":"get","key":"k","value":"x","rev":2,"outcome":"ok","invoke":4000,"complete":5000}`,
			[]history.Entry{a, b}, true, checker.Invalid, map[string]int{"bad_read": 1}},
		{"read of a missing seq", `{"client":1,"type":"get","key":"k","value":"b","rev":7,"outcome":"ok","invoke":4000,"complete":5000}`,
			[]history.Entry{a, b}, true, checker.Invalid, map[string]int{"bad_read": 1}},
		{"double-success CAS", `{"client":1,"type":"update","key":"k","value":"c","expected_rev":1,"rev":3,"outcome":"ok","invoke":4000,"complete":5000}`,
			[]history.Entry{a, b, entry(3, "k", "c")}, true, checker.Invalid, map[string]int{"cas_violation": 1}},
		{"double-success CAS, indeterminate", `{"client":1,"type":"update","key":"k","value":"c","expected_rev":1,"outcome":"info","err":"timeout","invoke":4000,"complete":5000}`,
			[]history.Entry{a, b, entry(3, "k", "c")}, true, checker.Invalid, map[string]int{"cas_violation": 1, "info_applied": 1}},
		{"CAS on a revision of another key", `{"client":2,"type":"put","key":"j","value":"p","rev":3,"outcome":"ok","invoke":0,"complete":1000}
{"client":1,"type":"update","key":"k","value":"c","expected_rev":3,"rev":4,"outcome":"ok","invoke":4000,"complete":5000}`,
			[]history.Entry{a, b, entry(3, "j", "p"), entry(4, "k", "c")}, true, checker.Invalid, map[string]int{"cas_violation": 1}},
		{"create over a live value", `{"client":1,"type":"create","key":"k","value":"c","rev":3,"outcome":"ok","invoke":4000,"complete":5000}`,
			[]history.Entry{a, b, entry(3, "k", "c")}, true, checker.Invalid, map[string]int{"cas_violation": 1}},
		{"incomplete: unverifiable", "", []history.Entry{a}, false, checker.Unknown,
			map[string]int{"unverifiable_writes": 1, "unverifiable_reads": 0}},
		// Sequence 1 nobody saw: client 1's read of a@1 and the ack of a@1
		// verify each other, and b's CAS on it; unknown only because the
		// stream's last sequence is not known (it is below).
		{"incomplete: a read and the ack it matches verify each other", "", []history.Entry{b}, false, checker.Unknown,
			map[string]int{"unverifiable_writes": 0, "unverifiable_reads": 0, "unverifiable_cas": 0, "history_verified_writes": 1, "history_verified_reads": 1}},
		{"incomplete: an update's expected revision nobody saw", `{"client":2,"type":"put","key":"j","value":"p","rev":3,"outcome":"ok","invoke":0,"complete":1000}
{"client":2,"type":"update","key":"j","value":"q","expected_rev":3,"rev":4,"outcome":"ok","invoke":2000,"complete":3000}`,
			[]history.Entry{a, b, entry(4, "j", "q")}, false, checker.Unknown, map[string]int{"unverifiable_writes": 1, "unverifiable_cas": 1}},
		{"incomplete: a read of another key's unseen revision", `{"client":1,"type":"get","key":"j","value":"a","rev":1,"outcome":"ok","invoke":4000,"complete":5000}`,
			[]history.Entry{b}, false, checker.Unknown, map[string]int{"unverifiable_reads": 1, "history_verified_reads": 1}},
		{"incomplete: a CAS violation is still proof", `{"client":1,"type":"update","key":"k","value":"c","expected_rev":1,"rev":3,"outcome":"ok","invoke":4000,"complete":5000}`,
			[]history.Entry{a, b, entry(3, "k", "c")}, false, checker.Invalid, map[string]int{"cas_violation": 1}},
		{"indeterminate, not applied", `{"client":1,"type":"update","key":"k","value":"c","expected_rev":2,"outcome":"info","err":"timeout","invoke":4000,"complete":5000}`,
			[]history.Entry{a, b}, true, checker.Valid, map[string]int{"info_not_applied": 1}},
		{"indeterminate, unresolved", `{"client":1,"type":"update","key":"k","value":"c","expected_rev":2,"outcome":"info","err":"timeout","invoke":4000,"complete":5000}`,
			[]history.Entry{a, b}, false, checker.Unknown, map[string]int{"info_unresolved": 1}},
		// The get places the indeterminate update at seq 3, which nobody
		// else saw, and is verified by it (resolveInfo's settlement).
		{"indeterminate, observed", `{"client":1,"type":"update","key":"k","value":"c","expected_rev":2,"outcome":"info","err":"timeout","invoke":4000,"complete":5000}
{"client":2,"type":"get","key":"k","value":"c","rev":3,"outcome":"ok","invoke":6000,"complete":7000}`,
			[]history.Entry{a, b}, false, checker.Unknown, map[string]int{"info_applied": 1, "unverifiable_reads": 0, CountVouchedReads: 1, CountSettledUnseen: 1}},
		{"two writes acknowledged with one revision", `{"client":2,"type":"put","key":"j","value":"p","rev":2,"outcome":"ok","invoke":2000,"complete":3000}`,
			[]history.Entry{a, b}, true, checker.Invalid, map[string]int{CountSeqConflict: 1, CountLostWrite: 1}},
		{"two values of one key acknowledged with one revision", `{"client":2,"type":"put","key":"k","value":"p","rev":2,"outcome":"ok","invoke":2000,"complete":3000}`,
			[]history.Entry{a, b}, true, checker.Invalid, map[string]int{CountSeqConflict: 1, CountLostWrite: 1}},
		// resolveInfo matches values by key: the same value under another
		// key, in the stream or read by a get, says nothing about this write.
		{"indeterminate, its value under another key", `{"client":1,"type":"update","key":"k","value":"c","expected_rev":2,"outcome":"info","err":"timeout","invoke":4000,"complete":5000}`,
			[]history.Entry{a, b, entry(3, "j", "c")}, true, checker.Invalid, map[string]int{"info_not_applied": 1, "unexpected_value": 1}},
		{"indeterminate, its value read from another key", `{"client":1,"type":"update","key":"k","value":"c","expected_rev":2,"outcome":"info","err":"timeout","invoke":4000,"complete":5000}
{"client":2,"type":"get","key":"j","value":"c","rev":3,"outcome":"ok","invoke":6000,"complete":7000}`,
			[]history.Entry{a, b}, true, checker.Invalid, map[string]int{"info_not_applied": 1, "bad_read": 1}},
	}
	for _, c := range cases {
		lines := base
		if c.extra != "" {
			lines += "\n" + c.extra
		}
		h := history.History{Ops: parseOps(t, lines), Stream: c.stream, StreamComplete: c.complete}
		r := NewIntegrity(checker.Options{}).Check(h)
		if !c.complete && r.Verdict != checker.Invalid && !strings.Contains(r.Summary, "the stream's last sequence unknown, so loss cannot be decided") {
			t.Errorf("%s: the stream's last sequence is unknown, and the summary does not say so: %s", c.name, r.Summary)
		}
		if r.Verdict != c.verdict {
			t.Errorf("%s: %s, want %s: %s", c.name, r.Verdict, c.verdict, r.Summary)
		}
		for _, k := range integrityKinds {
			if _, named := c.counts[k]; !named && r.Counts[k] != 0 {
				t.Errorf("%s: %s = %d, want 0", c.name, k, r.Counts[k])
			}
		}
		for k, v := range c.counts {
			if r.Counts[k] != v {
				t.Errorf("%s: %s = %d, want %d (%v)", c.name, k, r.Counts[k], v, r.Counts)
			}
		}
		if r.Verdict == checker.Invalid && len(r.Anomalies) == 0 {
			t.Errorf("%s: invalid without an example", c.name)
		}
	}
}

// unseenExamples are what the first example of an invalid unseen fixture
// says: how it knows the sequence nobody saw.
var unseenExamples = map[string]string{
	"cas_through_vouched":       "seq 2: nobody saw it in the stream, but a read returned it at the revision its write was acknowledged with",
	"create_over_settled_value": "seq 2: nobody saw it in the stream, but a read returned it there, which settles its indeterminate write at that revision",
	"seq_reused":                `client 0's put of k ("b") and client 1's put of j ("p") were both acknowledged with revision 2`,
}

// A stream incomplete by sequences nobody saw, with its last sequence
// known (testdata/unseen): each sequence costs only the judgements that
// need it. A write and a read that vouch for each other need nothing
// more, and the write is its key's entry for the CAS checks; what else
// needs such a sequence is undecided, and the summary names it.
func TestIntegrityUnseenSequences(t *testing.T) {
	cases := []struct {
		name    string
		last    uint64
		verdict checker.Verdict
		counts  map[string]int // anomaly kinds not named must be 0
		says    string
	}{
		{"verified", 2, checker.Valid, map[string]int{CountUnseenSeqs: 1, CountVouchedWrites: 1, CountVouchedReads: 1,
			"unverifiable_writes": 0, "unverifiable_reads": 0, "unverifiable_cas": 0, "cas_checked": 1},
			"1 of 2 sequences nobody saw: the history verifies every judgement that needs them (1 of 2 acknowledged writes and 1 of 2 reads verified by the history alone)"},
		{"unverified_write", 2, checker.Unknown, map[string]int{CountUnseenSeqs: 1, "unverifiable_writes": 1, CountVouchedWrites: 0},
			"1 of 2 sequences nobody saw, and nothing else verifies 1 of 2 acknowledged writes that need them: seq 1 (client 0's put of k)"},
		{"unverified_read", 3, checker.Unknown, map[string]int{CountUnseenSeqs: 1, "unverifiable_reads": 1, "unverifiable_writes": 0},
			"1 of 3 sequences nobody saw, and nothing else verifies 1 of 1 reads that need them: seq 3 (client 1's get of k)"},
		{"cas_through_vouched", 3, checker.Invalid, map[string]int{CountCASViolation: 1, CountVouchedWrites: 1, CountVouchedReads: 1},
			"1 cas_violation"},
		{"create_after_vouched_marker", 3, checker.Valid, map[string]int{CountVouchedWrites: 1, CountVouchedReads: 1, "unverifiable_cas": 0, "cas_checked": 2},
			"1 of 3 sequences nobody saw"},
		// An indeterminate write that a get places at a sequence nobody saw
		// (resolveInfo, as linearizability and deletes settle it) is its
		// key's entry there: the read is verified, and the create over the
		// marker or the update that expected the value is checked through it.
		{"settled_marker", 3, checker.Valid, map[string]int{CountSettledUnseen: 1, CountVouchedReads: 1, CountVouchedWrites: 0,
			"unverifiable_reads": 0, "unverifiable_cas": 0, "cas_checked": 2},
			"(0 of 2 acknowledged writes and 1 of 1 reads verified by the history alone, 1 indeterminate writes placed there by the read that saw them)"},
		{"settled_value_cas", 3, checker.Valid, map[string]int{CountSettledUnseen: 1, CountVouchedReads: 1, "unverifiable_reads": 0, "unverifiable_cas": 0, "cas_checked": 2},
			"1 of 3 sequences nobody saw: the history verifies every judgement that needs them"},
		{"create_over_settled_value", 3, checker.Invalid, map[string]int{CountCASViolation: 1, CountSettledUnseen: 1}, "1 cas_violation"},
		// Where the settlement is ambiguous, nothing is placed: two gets read
		// the marker at two sequences; a get of a marker names no id, and
		// two deletes may have written it; an ack, or gets of another
		// indeterminate write, name the sequence for another write; one of
		// two gets read the marker's id as a value.
		{"settled_reads_disagree", 4, checker.Unknown, map[string]int{CountSettledUnseen: 0, CountVouchedReads: 0, "unverifiable_reads": 2, "unverifiable_cas": 1},
			": seq 2 (client 1's get of k), seq 3 (client 2's get of k), seq 4 (client 0's create of k stored after sequences nobody saw)"},
		{"settled_two_markers", 3, checker.Unknown, map[string]int{CountSettledUnseen: 0, "unverifiable_reads": 1, "unverifiable_cas": 1},
			": seq 2 (client 1's get of k), seq 3 (client 0's create of k stored after sequences nobody saw)"},
		{"settled_seq_acked", 3, checker.Unknown, map[string]int{CountSettledUnseen: 0, "unverifiable_reads": 1, "unverifiable_writes": 1, "unverifiable_cas": 1},
			": seq 2 (client 1's get of k), seq 2 (client 2's put of j), seq 3"},
		{"settled_two_at_one_seq", 3, checker.Unknown, map[string]int{CountSettledUnseen: 0, "unverifiable_reads": 2, "unverifiable_cas": 1},
			": seq 2 (client 1's get of j), seq 2 (client 1's get of k), seq 3"},
		{"settled_kind_mismatch", 3, checker.Unknown, map[string]int{CountSettledUnseen: 0, "unverifiable_reads": 2, "unverifiable_cas": 1},
			": seq 2 (client 1's get of k), seq 2 (client 2's get of k), seq 3"},
		// Two writes acknowledged with one sequence nobody saw, each read
		// there: the acks are proof without the stream.
		{"seq_reused", 3, checker.Invalid, map[string]int{CountSeqConflict: 1, CountVouchedWrites: 2, CountVouchedReads: 2}, "1 seq_conflict"},
		{"many_undecided", 8, checker.Unknown, map[string]int{CountUnseenSeqs: 7, "unverifiable_writes": 7},
			": seq 1 (client 0's put of k), seq 2 (client 0's put of k), seq 3 (client 0's put of k), seq 4 (client 0's put of k), seq 5 (client 0's put of k), and 2 more"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := loadFixtureFrom(t, filepath.Join("testdata", "unseen"), c.name)
			if h.StreamComplete {
				t.Fatal("the fixture's stream is complete")
			}
			h.StreamLast = c.last
			r := NewIntegrity(checker.Options{}).Check(h)
			if r.Verdict != c.verdict || !strings.Contains(r.Summary, c.says) {
				t.Errorf("%s: %s, want %s saying %q", r.Verdict, r.Summary, c.verdict, c.says)
			}
			for _, k := range integrityKinds {
				if _, named := c.counts[k]; !named && r.Counts[k] != 0 {
					t.Errorf("%s = %d, want 0", k, r.Counts[k])
				}
			}
			for k, v := range c.counts {
				if r.Counts[k] != v {
					t.Errorf("%s = %d, want %d (%v)", k, r.Counts[k], v, r.Counts)
				}
			}
			if said, ok := unseenExamples[c.name]; ok && (len(r.Anomalies) == 0 || !strings.Contains(r.Anomalies[0].Description, said)) {
				t.Errorf("the example does not say %q: %+v", said, r.Anomalies)
			}
		})
	}
}
