package kvcheck

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Narrowing intervals (tighten) and cutting keys into pieces (chunkKey)
// must not change any key's verdict: compare with porcupine on each key's
// whole, untouched history, and with the model's own partition function,
// with and without a complete stream.
func TestPiecesMatchWholeKeys(t *testing.T) {
	copyOps := func(ops []*linOp) []*linOp {
		out := make([]*linOp, len(ops))
		for i, o := range ops {
			c := *o
			out[i] = &c
		}
		return out
	}
	model := kvPieceModel()
	compared := map[porcupine.CheckResult]int{} // keys by the untouched verdict
	defer func() {
		t.Logf("keys compared, by untouched verdict: %v", compared)
		if compared[porcupine.Ok] == 0 || compared[porcupine.Illegal] == 0 {
			t.Errorf("keys compared, by untouched verdict: %v; want both ok and illegal ones", compared)
		}
	}()
	for name, cfg := range simConfigs {
		for _, stale := range []float64{0, 0.02} {
			for _, complete := range []bool{true, false} {
				cfg.Ops, cfg.Seed, cfg.StaleRate, cfg.InfoRate = scaled(1500), 11, stale, 0.03
				// Porcupine on the untouched history of a 48-client hot key
				// gives up within a few hundred ops: that is why tighten
				// exists. Under -short the hot key has 10 clients, which
				// porcupine decides untouched in well under a second; the
				// long run keeps 48 and compares the pieces with the
				// tightened whole only.
				untouched, intractable := 10*time.Second, false
				if cfg.Clients > 8 {
					cfg.Ops = 400
					if testing.Short() {
						cfg.Clients, cfg.Ops = 10, 300
					} else {
						untouched, intractable = time.Second, true
					}
				}
				h := simulate(cfg)
				if !complete {
					h.Stream, h.StreamComplete = h.Stream[:len(h.Stream)/2], false
				}
				tag := fmt.Sprintf("%s stale=%v complete=%v", name, stale, complete)
				perKey := buildLinOps(&h, map[string]int{})
				illegal := 0
				for k, ops := range perKey {
					whole := porcupine.CheckOperationsTimeout(model, toOperations(copyOps(ops), false), untouched)
					tight, refuted := tighten(copyOps(ops))
					tightWhole := porcupine.CheckOperationsTimeout(model, toOperations(tight, false), 10*time.Second)
					piecesOK, piecesUnknown := true, false
					pieces := chunkKey(tight, 5)
					for _, p := range pieces {
						switch porcupine.CheckOperationsTimeout(model, toOperations(p, false), 10*time.Second) {
						case porcupine.Illegal:
							piecesOK = false
						case porcupine.Unknown:
							piecesUnknown = true
						}
					}
					switch {
					case tightWhole == porcupine.Unknown || piecesUnknown && piecesOK:
						t.Errorf("%s key %s: porcupine did not finish (tightened %s, pieces unknown %v): nothing compared",
							tag, k, tightWhole, piecesUnknown)
					case whole == porcupine.Unknown && !intractable:
						t.Errorf("%s key %s: porcupine did not finish the untouched history: nothing compared", tag, k)
					case whole != porcupine.Unknown && whole != tightWhole:
						t.Errorf("%s key %s: untouched %s, tightened %s", tag, k, whole, tightWhole)
					case (tightWhole == porcupine.Ok) != piecesOK:
						t.Errorf("%s key %s: tightened %s, %d pieces ok %v", tag, k, tightWhole, len(pieces), piecesOK)
					}
					if len(refuted) > 0 && piecesOK {
						t.Errorf("%s key %s: %d ops refuted, yet linearizable: %s", tag, k, len(refuted), refuted[0].why)
					}
					if stale == 0 && !piecesOK {
						t.Errorf("%s key %s: clean history not linearizable", tag, k)
					}
					if !piecesOK || len(refuted) > 0 {
						illegal++
					}
					compared[whole]++
				}
				r := NewLinearizability(checker.Options{ChunkOps: 5}).Check(h)
				if r.Counts["keys_illegal"] != illegal || r.Counts["keys_unknown"] != 0 {
					t.Errorf("%s: checker %v, want %d illegal keys", tag, r.Counts, illegal)
				}
				var all []porcupine.Operation
				for _, ops := range perKey {
					all = append(all, toOperations(ops, false)...)
				}
				if got := porcupine.CheckOperations(kvModel(5), all); got != (illegal == 0) {
					t.Errorf("%s: kvModel's partition says linearizable=%v, want %v", tag, got, illegal == 0)
				}
				// A real-time stale read is never linearizable.
				if sr := NewStaleRead(checker.Options{}).Check(h); sr.Verdict == checker.Invalid && r.Verdict != checker.Invalid {
					t.Errorf("%s: stale reads not caught: %s", tag, r.Summary)
				} else if stale > 0 && sr.Verdict != checker.Invalid {
					t.Logf("%s: no real-time stale read; linearizability %s", tag, r.Verdict)
				}
			}
		}
	}
}

func TestIntegrityCatchesInjectedDamage(t *testing.T) {
	cfg := simConfigs["mixed"]
	cfg.Ops, cfg.Seed = 5000, 12
	h := simulate(cfg)
	if r := NewIntegrity(checker.Options{}).Check(h); r.Verdict != checker.Valid {
		t.Fatalf("clean: %s", r.Summary)
	}
	// Lose one acknowledged write and add a value nobody wrote.
	var lost history.Entry
	var stream []history.Entry
	for _, e := range h.Stream {
		if lost.Seq == 0 && e.Seq > 100 {
			for _, o := range h.Ops {
				if o.Value == e.Value && o.Outcome == history.OK {
					lost = e
				}
			}
			if lost.Seq != 0 {
				continue
			}
		}
		stream = append(stream, e)
	}
	stream = append(stream, history.Entry{Seq: h.Stream[len(h.Stream)-1].Seq + 1, Key: "k1", Value: "nobody"})
	h.Stream = stream
	r := NewIntegrity(checker.Options{}).Check(h)
	if r.Verdict != checker.Invalid || r.Counts["lost_write"] != 1 || r.Counts["unexpected_value"] != 1 {
		t.Errorf("%s %v", r.Summary, r.Counts)
	}
}

// The model's unsettled-write branch: an indeterminate write that the
// stream cannot settle may or may not have happened.
func TestModelUnsettledWrite(t *testing.T) {
	m := kvPieceModel()
	seed := &linOp{kind: kSeed, idx: -1, key: "k", value: "a", rev: 5, exists: true, call: 0, ret: 0}
	w := &linOp{kind: kUpdate, out: oUnknown, key: "k", value: "b", expected: 5, call: 1, ret: math.MaxInt64}
	mk := func(extra ...*linOp) []porcupine.Operation {
		return toOperations(append([]*linOp{seed, w}, extra...), false)
	}
	get := func(v string, rev uint64, at int64) *linOp {
		return &linOp{kind: kGet, key: "k", value: v, rev: rev, call: at, ret: at + 1}
	}
	cases := []struct {
		name string
		ops  []porcupine.Operation
		want bool
	}{
		{"not applied", mk(get("a", 5, 10)), true},
		{"applied, revision revealed later", mk(get("b", 9, 10)), true},
		{"applied below its expected revision", mk(get("b", 5, 10)), false},
		{"both, in order", mk(get("a", 5, 10), get("b", 9, 20)), true},
		{"cannot be undone", mk(get("b", 9, 10), get("a", 5, 20)), false},
		{"10071 after it applied", mk(get("a", 5, 10),
			&linOp{kind: kUpdate, out: oWrongSeq, key: "k", value: "c", expected: 5, call: 20, ret: 21}), true},
		{"update expecting an unseen revision", mk(
			&linOp{kind: kUpdate, out: oOK, key: "k", value: "c", expected: 7, rev: 8, call: 20, ret: 21}), true},
		{"update expecting a revision below it", mk(get("a", 5, 10),
			&linOp{kind: kUpdate, out: oOK, key: "k", value: "c", expected: 5, rev: 8, call: 20, ret: 21},
			get("b", 9, 30)), false},
	}
	for _, c := range cases {
		if got := porcupine.CheckOperations(m, c.ops); got != c.want {
			t.Errorf("%s: linearizable %v, want %v", c.name, got, c.want)
		}
	}
}

// A timeout the incomplete stream cannot settle must not stop the key from
// being cut into pieces (updates can only take effect while their expected
// revision is current), or porcupine would get the key's whole history.
func TestUnsettledUpdatesStillCut(t *testing.T) {
	cfg := simConfigs["single-writer"]
	cfg.Ops, cfg.Seed, cfg.InfoRate = scaled(40000), 13, 0.05
	h := simulate(cfg)
	h.Stream, h.StreamComplete = h.Stream[:len(h.Stream)/3], false
	// Cut as it should, no piece is much over ChunkOps (about 52 here);
	// uncut, pieces run from the first unsettled write to the key's end
	// (about 700 ops under -short).
	r := NewLinearizability(checker.Options{ChunkOps: 50}).Check(h)
	if r.Verdict != checker.Valid || r.Counts["info_unresolved"] == 0 || r.Counts["max_piece_ops"] > 100 {
		t.Errorf("%s: %s %v", r.Verdict, r.Summary, r.Counts)
	}
}
