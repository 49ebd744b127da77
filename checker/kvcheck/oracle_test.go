package kvcheck

import (
	"math"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Simulated histories, checked against brute-force oracles that follow the
// definitions literally (quadratic, so the histories are small).

var simConfigs = map[string]simConfig{
	"single-writer": {Ops: 20000, Clients: 8, Keys: 16},
	"contended":     {Ops: 20000, Clients: 8, Keys: 4, Contended: 4, ShareRate: 1},
	"mixed":         {Ops: 20000, Clients: 8, Keys: 20, Contended: 4, ShareRate: 0.3, PutRate: 0.1, InfoRate: 0.02},
	"blind-put":     {Ops: 20000, Clients: 8, Keys: 16, PutRate: 1, InfoRate: 0.02},
	"hot-key":       {Ops: 20000, Clients: 48, Keys: 1, Contended: 1, ShareRate: 1, InfoRate: 0.01},
}

// scaled shrinks a simulation under go test -short.
func scaled(n int) int {
	if testing.Short() {
		return n / 4
	}
	return n
}

func TestSimCleanHistoriesAreValid(t *testing.T) {
	for name, cfg := range simConfigs {
		for seed := uint64(1); seed <= 3; seed++ {
			cfg.Seed, cfg.Ops = seed, scaled(cfg.Ops)
			h := simulate(cfg)
			for _, r := range Run(h, All(checker.Options{ChunkOps: 50})) {
				if r.Verdict != checker.Valid {
					t.Errorf("%s seed %d: %s %s: %s %s", name, seed, r.Name, r.Verdict, r.Summary, r.Reason)
					for _, a := range r.Anomalies {
						t.Logf("  %s", a.Description)
					}
				}
			}
		}
	}
}

func dirty(cfg simConfig) simConfig {
	cfg.StaleRate, cfg.Spurious, cfg.InfoRate = 0.05, 0.01, 0.02
	return cfg
}

type oracleStale struct {
	revs  int
	ns    int64
	write int32
}

// staleOracle finds the stale gets by the definition: for each ok get,
// every acknowledged newer write of its key that precedes it.
func staleOracle(ops []history.Op) map[int32]oracleStale {
	want := map[int32]oracleStale{}
	for i := range ops {
		g := &ops[i]
		if g.Type != history.Get || g.Outcome != history.OK {
			continue
		}
		s := oracleStale{ns: math.MinInt64, write: -1}
		first := int64(math.MaxInt64)
		for j := range ops {
			w := &ops[j]
			if w.Key == g.Key && w.IsWrite() && w.Outcome == history.OK && w.Rev > g.Rev && w.Complete < g.Invoke {
				s.revs++
				if w.Complete < first {
					first, s.write = w.Complete, int32(j)
				}
			}
		}
		if s.revs > 0 {
			s.ns = g.Invoke - first
			want[int32(i)] = s
		}
	}
	return want
}

func TestStaleReadMatchesOracle(t *testing.T) {
	for name, cfg := range simConfigs {
		cfg = dirty(cfg)
		cfg.Ops, cfg.Seed = scaled(6000), 7
		h := simulate(cfg)
		ops := h.Ops
		want := staleOracle(ops)
		perKey, keys := byKey(ops)
		var hits []staleHit
		for _, k := range keys {
			hits, _ = staleForKey(ops, perKey[k], hits, 0)
		}
		if len(hits) != len(want) || len(want) == 0 {
			t.Errorf("%s: %d stale reads, oracle %d", name, len(hits), len(want))
		}
		for _, x := range hits {
			w, ok := want[x.get]
			if !ok || w.revs != x.revs || w.ns != x.ns || ops[w.write].Complete != ops[x.write].Complete {
				t.Errorf("%s: get %d: got %+v, oracle %+v (found %v)", name, x.get, x, w, ok)
			}
		}
		r := NewStaleRead(checker.Options{}).Check(h)
		if r.Counts["stale_reads"] != len(want) || r.Verdict != checker.Invalid {
			t.Errorf("%s: checker says %v", name, r.Counts)
		}
	}
}

// sessionOracle counts read-your-writes and monotonic-read violations by
// the definition: against every op of the client that precedes the get.
func sessionOracle(ops []history.Op) (ryw, mono int) {
	for i := range ops {
		g := &ops[i]
		if g.Type != history.Get || g.Outcome != history.OK {
			continue
		}
		var wrote, read uint64
		for j := range ops {
			o := &ops[j]
			if o.Client != g.Client || o.Key != g.Key || o.Outcome != history.OK || o.Complete >= g.Invoke {
				continue
			}
			if o.IsWrite() {
				wrote = max(wrote, o.Rev)
			} else if o.Type == history.Get {
				read = max(read, o.Rev)
			}
		}
		if g.Rev < wrote {
			ryw++
		}
		if g.Rev < read {
			mono++
		}
	}
	return ryw, mono
}

func TestSessionMatchesOracle(t *testing.T) {
	for name, cfg := range simConfigs {
		cfg = dirty(cfg)
		cfg.Ops, cfg.Seed = scaled(6000), 8
		h := simulate(cfg)
		ryw, mono := sessionOracle(h.Ops)
		r := NewSession(checker.Options{}).Check(h)
		if r.Counts["ryw_violations"] != ryw || r.Counts["monotonic_violations"] != mono || ryw+mono == 0 {
			t.Errorf("%s: got %v, oracle ryw %d mono %d", name, r.Counts, ryw, mono)
		}
	}
}

// attributionOracle classifies each wrong-last-sequence rejection by the
// definitions of Attribution's doc. It reads concurrency from the stream
// alone, so it needs a complete stream whose every entry someone wrote.
func attributionOracle(h history.History) map[string]int {
	ops := h.Ops
	writer := map[string]int{}
	for i := range ops {
		if ops[i].IsWrite() {
			writer[ops[i].Value] = i
		}
	}
	want := map[string]int{}
	for u := range ops {
		U := &ops[u]
		if U.Type != history.Update || U.Outcome != history.Fail ||
			(U.Err != history.ErrWrongLastSeq && U.Err != history.ErrWrongLastSeqAny) {
			continue
		}
		// The client's latest ok get of the key before the update, in
		// program order (invoke time, then history order).
		src := -1
		for j := range ops {
			o := &ops[j]
			if o.Client == U.Client && o.Key == U.Key && o.Type == history.Get && o.Outcome == history.OK &&
				(o.Invoke < U.Invoke || o.Invoke == U.Invoke && j < u) && (src < 0 || o.Invoke >= ops[src].Invoke) {
				src = j
			}
		}
		e := U.ExpectedRev
		cls := clsSpurious
		switch {
		case src < 0 || ops[src].Rev != e:
			cls = clsUnknown
		default:
			for j := range ops {
				o := &ops[j]
				if o.Key == U.Key && o.IsWrite() && o.Outcome == history.OK && o.Rev > e && o.Complete < ops[src].Invoke {
					cls = clsStale
				}
			}
			if cls != clsStale {
				for _, en := range h.Stream {
					if w, ok := writer[en.Value]; ok && en.Key == U.Key && en.Seq > e && w != u && ops[w].Invoke <= U.Complete {
						cls = clsConcurrent
					}
				}
			}
			if cls == clsSpurious && ops[src].Complete >= U.Invoke {
				// The get and the update tie: E's write must have been
				// acknowledged before the update was invoked.
				cls = clsConcurrent
				for j := range ops {
					o := &ops[j]
					if o.Key == U.Key && o.IsWrite() && o.Outcome == history.OK && o.Rev == e && o.Complete < U.Invoke {
						cls = clsSpurious
					}
				}
			}
		}
		want[cls]++
	}
	return want
}

func TestAttributionMatchesOracle(t *testing.T) {
	seen := map[string]int{}
	for name, cfg := range simConfigs {
		cfg = dirty(cfg)
		cfg.Ops, cfg.Seed = scaled(6000), 9
		h := simulate(cfg)
		want := attributionOracle(h)
		r := NewAttribution(checker.Options{}).Check(h)
		for _, cls := range []string{clsStale, clsConcurrent, clsSpurious, clsUnknown} {
			if r.Counts[cls] != want[cls] {
				t.Errorf("%s: %s = %d, oracle %d (%v)", name, cls, r.Counts[cls], want[cls], r.Counts)
			}
		}
		for cls, n := range want {
			seen[cls] += n
		}
	}
	for _, cls := range []string{clsStale, clsConcurrent, clsSpurious} {
		if seen[cls] == 0 {
			t.Errorf("the simulations produced no %s rejection: %v", cls, seen)
		}
	}
}
