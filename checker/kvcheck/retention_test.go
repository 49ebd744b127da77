package kvcheck

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

func TestRetention(t *testing.T) {
	e := func(seq uint64, key, value, op string) history.Entry {
		return history.Entry{Seq: seq, Key: key, Value: value, Operation: op}
	}
	ack := func(seq uint64, key, value string, typ history.OpType) history.Op {
		return history.Op{Client: 0, Type: typ, Key: key, Value: value, Rev: seq, Outcome: history.OK,
			Invoke: int64(seq) * 10, Complete: int64(seq)*10 + 5}
	}
	ops := []history.Op{ack(1, "k0", "a", history.Put), ack(2, "k0", "b", history.Put), ack(3, "k1", "c", history.Put),
		ack(4, "k0", "d", history.Put)}
	all := []history.Entry{e(1, "k0", "a", ""), e(2, "k0", "b", ""), e(3, "k1", "c", ""), e(4, "k0", "d", "")}
	purged := append(append([]history.Entry(nil), all[:3]...), e(5, "k0", "p", "purge"))
	purgeOps := append(append([]history.Op(nil), ops[:3]...), ack(5, "k0", "p", history.Purge))
	cases := []struct {
		name     string
		ops      []history.Op
		observed []history.Entry
		final    Final
		verdict  checker.Verdict
		counts   map[string]int
	}{
		{"history 1 clean", ops, all, Final{Entries: []history.Entry{all[2], all[3]}, Complete: true, PerKey: 1}, checker.Valid, nil},
		// The read-back is of a stream that never kept seq 4: seq 2 staying
		// is no second anomaly (kv/rb2_hist2_lost_write_spurious_extra).
		{"history 1 last value lost", ops, all, Final{Entries: []history.Entry{all[1], all[2]}, Complete: true, PerKey: 1}, checker.Invalid,
			map[string]int{CountLastValueLost: 1, CountRetainedExtra: 0}},
		{"history 2 newest write lost, never observed", ops, all[:3], Final{Entries: all[:3], Complete: true, PerKey: 2}, checker.Invalid,
			map[string]int{CountLastValueLost: 1, CountRetainedExtra: 0}},
		{"history 2 an older revision kept, a newer one missing", ops, all, Final{Entries: []history.Entry{all[0], all[2], all[3]}, Complete: true, PerKey: 2}, checker.Invalid,
			map[string]int{CountLastValueLost: 0, CountRetainedExtra: 1}},
		{"keep-all purge lost", purgeOps, purged, Final{Entries: all[:3], Complete: true}, checker.Invalid,
			map[string]int{CountLastValueLost: 1, CountRetainedExtra: 0}},
		{"history 1 last value never observed", ops, all[:3], Final{Entries: []history.Entry{all[2]}, Complete: true, PerKey: 1}, checker.Invalid,
			map[string]int{CountLastValueLost: 1}},
		{"history 2 clean", ops, all, Final{Entries: []history.Entry{all[1], all[2], all[3]}, Complete: true, PerKey: 2}, checker.Valid, nil},
		{"history 2 kept one too many", ops, all, Final{Entries: all, Complete: true, PerKey: 2}, checker.Invalid,
			map[string]int{CountRetainedExtra: 1}},
		{"keep-all clean", ops, all, Final{Entries: all, Complete: true}, checker.Valid, nil},
		{"keep-all interior loss", ops, all, Final{Entries: []history.Entry{all[0], all[2], all[3]}, Complete: true}, checker.Invalid,
			map[string]int{CountRetainedMissing: 1}},
		{"keep-all purge clean", purgeOps, purged, Final{Entries: []history.Entry{all[2], purged[3]}, Complete: true}, checker.Valid, nil},
		{"keep-all purge not applied", purgeOps, purged, Final{Entries: purged, Complete: true}, checker.Invalid,
			map[string]int{CountRetainedExtra: 2}},
		{"changed", ops, all, Final{Entries: []history.Entry{all[2], e(4, "k0", "z", "")}, Complete: true, PerKey: 1}, checker.Invalid,
			map[string]int{CountRetainedChanged: 1}},
		{"incomplete read-back", ops, all, Final{Entries: []history.Entry{all[2]}, PerKey: 1}, checker.Unknown, nil},
		{"read-back cut short", ops, all, Final{Entries: []history.Entry{all[2]}, Torn: 3, PerKey: 1}, checker.Unknown, nil},
		{"sequence reassigned", ops, all, Final{Entries: []history.Entry{all[2], all[3]}, Complete: true, PerKey: 1,
			Conflicts: []history.Entry{e(2, "k1", "q", "")}}, checker.Invalid, map[string]int{CountSeqConflict: 1}},
		{"empty", nil, nil, Final{Complete: true, PerKey: 1}, checker.Valid, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.final.Observed = c.observed
			r := NewRetention(checker.Options{}, c.final).Check(history.History{Ops: c.ops})
			if r.Verdict != c.verdict {
				t.Fatalf("verdict %s (%s %s), want %s", r.Verdict, r.Summary, r.Reason, c.verdict)
			}
			if cut := "stream.jsonl is cut short at line 3: the read-back did not finish"; strings.Contains(r.Summary, cut) != (c.final.Torn == 3) {
				t.Errorf("summary %q: says %q %v, want %v", r.Summary, cut, !(c.final.Torn == 3), c.final.Torn == 3)
			}
			for k, n := range c.counts {
				if r.Counts[k] != n {
					t.Errorf("count %s = %d, want %d (%s)", k, r.Counts[k], n, r.Summary)
				}
			}
		})
	}
}
