package online

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// simulate makes a history of clients that get a key and then update it,
// against a store whose gets are sometimes served stale (as followers do
// with Direct Get on), with coarse timestamps so that ties and zero-length
// ops happen. Updates with a stale expected revision are rejected 10071.
func simulate(seed uint64, clients, keys, ops int, staleP float64) []history.Op {
	return simulateDeletes(seed, clients, keys, ops, staleP, 0)
}

// simulateDeletes is simulate where a fraction deleteP of the writes are
// delete markers (no expected revision; a get of one is not found with
// the marker's revision, as kv-update records it).
func simulateDeletes(seed uint64, clients, keys, ops int, staleP, deleteP float64) []history.Op {
	rng := rand.New(rand.NewPCG(seed, 1))
	type key struct {
		revs    []uint64 // acknowledged revisions, in order
		acks    []int64  // their ack times
		markers map[uint64]bool
	}
	ks := make([]key, keys)
	var out []history.Op
	next := uint64(1)
	now := make([]int64, clients)   // each client's last completion: it runs one op at a time
	last := make([]uint64, clients) // revision each client last read of its key
	clock := int64(0)               // one clock for all, as the recorder's
	for n := 0; n < ops; n++ {
		cl := rng.IntN(clients)
		k := cl % keys
		kn := fmt.Sprintf("k%d", k)
		clock += int64(rng.IntN(2)) * 1000
		inv := max(clock, now[cl])
		cmp := inv + int64(rng.IntN(3))*1000 // zero-length ops and ties happen
		now[cl] = cmp
		kv := &ks[k]
		if rng.IntN(2) == 0 { // get
			rev := uint64(0)
			// the latest revision acknowledged before the get completed...
			for i := len(kv.revs) - 1; i >= 0; i-- {
				if kv.acks[i] <= cmp {
					rev = kv.revs[i]
					if rng.Float64() < staleP && i > 0 { // ...or an older one
						rev = kv.revs[rng.IntN(i)]
					}
					break
				}
			}
			g := history.Op{Client: cl, Type: history.Get, Key: kn, Rev: rev, Outcome: history.OK, Invoke: inv, Complete: cmp}
			if kv.markers[rev] {
				g.Err, g.Value = history.ErrNotFound, fmt.Sprint("m", rev)
			}
			out = append(out, g)
			last[cl] = rev
			continue
		}
		if rng.Float64() < deleteP {
			if kv.markers == nil {
				kv.markers = map[uint64]bool{}
			}
			kv.markers[next] = true
			out = append(out, history.Op{Client: cl, Type: history.Delete, Key: kn, Value: fmt.Sprint("m", next), Rev: next,
				Outcome: history.OK, Invoke: inv, Complete: cmp})
			kv.revs, kv.acks = append(kv.revs, next), append(kv.acks, cmp)
			next++
			continue
		}
		cur := uint64(0)
		if len(kv.revs) > 0 {
			cur = kv.revs[len(kv.revs)-1]
		}
		op := history.Op{Client: cl, Type: history.Update, Key: kn, ExpectedRev: last[cl], Value: fmt.Sprint(n), Invoke: inv, Complete: cmp}
		if last[cl] != cur {
			op.Outcome, op.Err, op.ErrCode, op.ErrSeq = history.Fail, history.ErrWrongLastSeq, 10071, cur
		} else {
			op.Outcome, op.Rev = history.OK, next
			kv.revs, kv.acks = append(kv.revs, next), append(kv.acks, cmp)
			next++
		}
		out = append(out, op)
	}
	return out
}

func offline(ops []history.Op) Counts {
	h := history.History{Ops: ops}
	st := kvcheck.NewStaleRead(checker.Options{}).Check(h)
	se := kvcheck.NewSession(checker.Options{}).Check(h)
	at := kvcheck.NewAttribution(checker.Options{}).Check(h)
	return Counts{Gets: int64(st.Counts["gets"]), StaleReads: int64(st.Counts["stale_reads"]),
		RYW: int64(se.Counts["ryw_violations"]), Monotonic: int64(se.Counts["monotonic_violations"]),
		RejectedStale: int64(at.Counts["stale_read"])}
}

// The online counts equal the offline checkers' on the same history, fed
// in completion order or jittered within the hold.
func TestOnlineMatchesOffline(t *testing.T) {
	runs := 300
	if testing.Short() {
		runs = 60
	}
	for seed := uint64(1); seed <= uint64(runs); seed++ {
		deleteP := 0.0
		if seed%2 == 1 { // deletes on half the seeds: markers are writes with a revision
			deleteP = 0.2
		}
		ops := simulateDeletes(seed, 1+int(seed%6), 1+int(seed%4), 400, 0.2, deleteP)
		want := offline(ops)
		for _, jitter := range []bool{false, true} {
			c := New(10*time.Microsecond, time.Second)
			feed := append([]history.Op(nil), ops...)
			if jitter { // recorded out of completion order, within the hold (a client's own ops stay in order)
				rng := rand.New(rand.NewPCG(seed, 2))
				for i := range feed {
					if j := i + rng.IntN(2); j < len(feed) && feed[j].Client != feed[i].Client && abs(feed[j].Complete-feed[i].Complete) < 5000 {
						feed[i], feed[j] = feed[j], feed[i]
					}
				}
			}
			for _, op := range feed {
				c.Add(op)
			}
			c.Flush()
			got := c.Counts()
			got.Late = 0
			if got != want {
				t.Fatalf("seed %d jitter %v: online %+v, offline %+v", seed, jitter, got, want)
			}
		}
	}
}

func TestOnlineCases(t *testing.T) {
	w := func(cl int, rev uint64, inv, cmp int64) history.Op {
		return history.Op{Client: cl, Type: history.Put, Key: "k", Value: fmt.Sprint(rev), Rev: rev, Outcome: history.OK, Invoke: inv, Complete: cmp}
	}
	g := func(cl int, rev uint64, inv, cmp int64) history.Op {
		return history.Op{Client: cl, Type: history.Get, Key: "k", Rev: rev, Outcome: history.OK, Invoke: inv, Complete: cmp}
	}
	for _, tc := range []struct {
		name string
		ops  []history.Op
		want Counts
	}{
		{"clean", []history.Op{w(0, 1, 0, 10), g(1, 1, 20, 30)}, Counts{Gets: 1}},
		{"stale", []history.Op{w(0, 1, 0, 10), w(0, 2, 11, 20), g(1, 1, 21, 30)}, Counts{Gets: 1, StaleReads: 1}},
		{"tie is concurrent, not stale", []history.Op{w(0, 1, 0, 10), w(0, 2, 11, 20), g(1, 1, 20, 30)}, Counts{Gets: 1}},
		{"zero-length get at the ack", []history.Op{w(0, 1, 0, 10), w(0, 2, 11, 20), g(1, 1, 20, 20)}, Counts{Gets: 1}},
		{"read your own write", []history.Op{w(0, 2, 0, 10), g(0, 1, 11, 11)}, Counts{Gets: 1, RYW: 1, StaleReads: 1}},
		{"own write at the get's instant is concurrent", []history.Op{w(0, 2, 0, 10), g(0, 1, 10, 10)}, Counts{Gets: 1}},
		{"monotonic", []history.Op{w(1, 1, 0, 1), w(1, 2, 2, 3), g(0, 2, 10, 11), g(0, 1, 12, 13)}, Counts{Gets: 2, StaleReads: 1, Monotonic: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(0, time.Second)
			for _, op := range tc.ops {
				c.Add(op)
			}
			c.Flush()
			if got := c.Counts(); got != tc.want {
				t.Errorf("online %+v, want %+v", got, tc.want)
			}
			if off := offline(tc.ops); off != tc.want {
				t.Errorf("offline %+v, want %+v (the test's expectation is wrong)", off, tc.want)
			}
			_, first := c.FirstAnomaly()
			if first != (tc.want.Anomalies() > 0) {
				t.Errorf("first anomaly %v with %d anomalies", first, tc.want.Anomalies())
			}
			// What the pipeline stores says the same.
			tally := c.Tally()
			if tally.Counts["gets"] != tc.want.Gets || tally.Counts["stale_reads"] != tc.want.StaleReads ||
				tally.Counts["ryw_violations"] != tc.want.RYW || tally.Counts["monotonic_violations"] != tc.want.Monotonic {
				t.Errorf("tally %v, want %+v", tally.Counts, tc.want)
			}
			if (tally.First != nil) != first {
				t.Errorf("tally's first anomaly %v, checker's %v", tally.First, first)
			}
			if want := fmt.Sprintf("%d stale reads, %d read-your-writes", tc.want.StaleReads, tc.want.RYW); !strings.HasPrefix(tally.Line(), want) {
				t.Errorf("words %q, want them to start %q", tally.Line(), want)
			}
		})
	}
}

// Pruning keeps memory bounded without changing the answer: a long
// history whose writes span far more than the horizon.
func TestOnlinePrunes(t *testing.T) {
	ops := simulate(7, 4, 2, 60_000, 0.1)
	c := New(5*time.Microsecond, 5*time.Microsecond) // ops here take at most 2µs
	for _, op := range ops {
		c.Add(op)
	}
	c.Flush()
	got := c.Counts()
	got.Late = 0
	if want := offline(ops); got != want {
		t.Fatalf("online %+v, offline %+v", got, want)
	}
	kept := 0
	for _, k := range c.keys {
		kept += len(k.complete)
	}
	if kept > 5000 {
		t.Errorf("%d writes kept of a 60,000-op history: pruning does not bound memory", kept)
	}
}

func BenchmarkOnline(b *testing.B) {
	ops := simulate(3, 10, 10, 100_000, 0.05)
	b.ResetTimer()
	for range b.N {
		c := New(time.Millisecond, 5*time.Second)
		for _, op := range ops {
			c.Add(op)
		}
		c.Flush()
	}
	b.ReportMetric(float64(len(ops)*b.N)/b.Elapsed().Seconds(), "ops/s")
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
