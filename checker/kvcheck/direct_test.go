package kvcheck

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The revision-order witness on small pieces, each branch that can refuse
// a candidate included: it may only say "legal" where porcupine does.
func TestLinearizeByRevision(t *testing.T) {
	tests := []struct {
		name string
		ops  string
		want bool
	}{
		{"update after get", `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":10}
{"client":1,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":20,"complete":30}
{"client":1,"type":"update","key":"k","value":"b","expected_rev":1,"rev":2,"outcome":"ok","invoke":40,"complete":50}`, true},
		{"stale get after the next write", `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":10}
{"client":0,"type":"put","key":"k","value":"b","rev":2,"outcome":"ok","invoke":20,"complete":30}
{"client":1,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":40,"complete":50}`, false},
		{"get tied with the next write's invoke", `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":10}
{"client":1,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":20,"complete":30}
{"client":0,"type":"put","key":"k","value":"b","rev":2,"outcome":"ok","invoke":30,"complete":40}`, true},
		{"zero-length ops at one instant", `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":10,"complete":10}
{"client":1,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":10,"complete":10}
{"client":2,"type":"get","key":"k","outcome":"ok","err":"not_found","invoke":10,"complete":10}`, true},
		{"get before a write that completed first", `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":10}
{"client":1,"type":"get","key":"k","outcome":"ok","err":"not_found","invoke":20,"complete":30}`, false},
		{"get of a revision nobody wrote", `{"client":1,"type":"get","key":"k","value":"z","rev":7,"outcome":"ok","invoke":0,"complete":10}`, false},
		{"10071 only where its revision holds", `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":10}
{"client":1,"type":"update","key":"k","value":"b","expected_rev":1,"outcome":"fail","err":"wrong_last_seq","err_code":10071,"invoke":20,"complete":30}`, false},
		{"10071 fits before the write", `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":10}
{"client":1,"type":"update","key":"k","value":"b","expected_rev":1,"outcome":"fail","err":"wrong_last_seq","err_code":10071,"invoke":5,"complete":30}`, true},
		{"key_exists needs a written key", `{"client":1,"type":"create","key":"k","value":"b","outcome":"fail","err":"key_exists","err_code":10071,"invoke":0,"complete":10}`, false},
		{"create over a delete marker", `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":10}
{"client":0,"type":"delete","key":"k","value":"m1","rev":2,"outcome":"ok","invoke":20,"complete":30}
{"client":1,"type":"get","key":"k","value":"m1","rev":2,"outcome":"ok","err":"not_found","invoke":40,"complete":50}
{"client":1,"type":"create","key":"k","value":"c","rev":3,"outcome":"ok","invoke":60,"complete":70}`, true},
		{"two updates on one expected revision", `{"client":0,"type":"put","key":"k","value":"a","rev":1,"outcome":"ok","invoke":0,"complete":10}
{"client":0,"type":"update","key":"k","value":"b","expected_rev":1,"rev":2,"outcome":"ok","invoke":20,"complete":30}
{"client":1,"type":"update","key":"k","value":"c","expected_rev":1,"rev":3,"outcome":"ok","invoke":20,"complete":30}`, false},
		{"an unsettled write is left to porcupine", `{"client":0,"type":"put","key":"k","value":"a","outcome":"info","err":"timeout","invoke":0,"complete":10}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := history.History{Ops: parseOps(t, tc.ops)}
			for _, o := range h.Ops {
				if o.Outcome == history.OK && o.IsWrite() {
					h.Stream = append(h.Stream, history.Entry{Seq: o.Rev, Key: o.Key, Value: o.Value, Operation: o.MarkerOperation()})
				}
			}
			sortEntries(h.Stream)
			h.StreamComplete = tc.name != "an unsettled write is left to porcupine"
			pieces := piecesOf(&h, 1000)
			if len(pieces) != 1 {
				t.Fatalf("%d pieces, want 1", len(pieces))
			}
			got := linearizeByRevision(pieces[0])
			plain := porcupine.CheckOperations(kvPieceModel(), toOperations(pieces[0], false))
			if got != tc.want || (got && !plain) {
				t.Errorf("linearizeByRevision = %v, want %v (porcupine: %v)", got, tc.want, plain)
			}
		})
	}
}

// On simulated tie-heavy histories, damaged or not, the witness never
// calls a piece legal that porcupine finds illegal, and it decides most of
// the legal ones.
func TestDirectAgreesWithPorcupine(t *testing.T) {
	r := rand.New(rand.NewPCG(*simSeed, 44))
	legal, direct := 0, 0
	for i := 0; i < 1000; i++ {
		cfg := tieSimConfig{Clients: 1 + r.IntN(4), Keys: 1 + r.IntN(2), Ops: 3 + r.IntN(14), MaxDur: r.IntN(3), MaxGap: r.IntN(2),
			PutRate: 0.2, InfoRate: 0.15, SpuriousRate: 0.15}
		h := tieSimulate(cfg, r)
		if r.IntN(2) == 0 {
			perturb(&h, r)
		}
		for _, p := range piecesOf(&h, 1+r.IntN(4)) {
			d := linearizeByRevision(p)
			ok := porcupine.CheckOperations(kvPieceModel(), toOperations(p, false))
			if d && !ok {
				t.Fatalf("history %d: the witness calls a piece legal that porcupine does not:\n%s", i, dumpHistory(h))
			}
			if ok {
				legal++
				if d {
					direct++
				}
			}
		}
	}
	t.Logf("%d of %d legal pieces decided without a search", direct, legal)
	if legal == 0 || direct*2 < legal {
		t.Errorf("the witness decided %d of %d legal pieces: it is hardly used", direct, legal)
	}
}

// piecesOf cuts h as the checker does (narrowed, by key, into pieces).
func piecesOf(h *history.History, chunk int) [][]*linOp {
	var out [][]*linOp
	perKey := buildLinOps(h, map[string]int{})
	for _, ops := range perKey {
		kept, _ := tighten(ops)
		out = append(out, chunkKey(kept, chunk)...)
	}
	return out
}

// verify is the witness's safety net: whatever place and assign did, a
// candidate with a point outside its op's interval, points that go back in
// time, or a step the model refuses is no linearization.
func TestVerifyRejectsBadCandidates(t *testing.T) {
	seed := &linOp{kind: kSeed, idx: -1, key: "k", call: -1, ret: -1}
	w1 := &linOp{kind: kPut, out: oOK, key: "k", value: "a", rev: 1, call: 0, ret: 40}
	g1 := &linOp{kind: kGet, out: oOK, key: "k", value: "a", rev: 1, call: 50, ret: 60}
	w2 := &linOp{kind: kPut, out: oOK, key: "k", value: "b", rev: 2, call: 40, ret: 70}
	bad := &linOp{kind: kGet, out: oOK, key: "k", value: "zz", rev: 1, call: 50, ret: 60}
	e := epochs{seed: seed, writes: []*linOp{w1, w2}}
	cand := func(gAt, w2At int64, g *linOp) []point {
		return []point{{o: seed, at: -1}, {o: w1, epoch: 1, at: 0}, {o: g, epoch: 1, at: gAt}, {o: w2, epoch: 2, at: w2At}}
	}
	tests := []struct {
		name string
		ps   []point
		want bool
	}{
		{"a linearization", cand(55, 55, g1), true},
		{"a point before its op is invoked", cand(45, 55, g1), false},
		{"a point after its op returned", cand(65, 66, g1), false},
		{"points going back in time", cand(55, 50, g1), false},
		{"a get of a value the state does not hold", cand(55, 55, bad), false},
	}
	for _, tc := range tests {
		if got := e.verify(tc.ps); got != tc.want {
			t.Errorf("%s: verify = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Deciding keys a batch at a time (linBatchOps) changes nothing: the same
// result with batches of one key as with one batch for the whole history.
func TestLinearizabilityBatches(t *testing.T) {
	cfg := scaleCfg
	cfg.Ops, cfg.Keys, cfg.Clients, cfg.StaleRate = 40_000, 300, 20, 0.01
	scale, _ := simulateScale(cfg)
	r := rand.New(rand.NewPCG(3, 4))
	histories := map[string]history.History{"scale, 1% stale": scale}
	for i := 0; i < 30; i++ {
		h := tieSimulate(tieSimConfig{Clients: 3, Keys: 4, Ops: 40, MaxDur: 2, MaxGap: 1, PutRate: 0.2, InfoRate: 0.15, SpuriousRate: 0.15}, r)
		perturb(&h, r)
		histories[fmt.Sprintf("tie-heavy %d", i)] = h
	}
	opts := checker.Options{MaxVisualizations: -1, MaxExamples: 1000, Timeout: time.Minute}
	for name, h := range histories {
		whole := NewLinearizability(opts).Check(h)
		defer func(n int) { linBatchOps = n }(linBatchOps)
		linBatchOps = 1
		batched := NewLinearizability(opts).Check(h)
		linBatchOps = 250_000
		// The explanation's longest prefix is porcupine's pick among
		// equals and varies from run to run: compare what was found.
		for _, r := range []*checker.Result{&whole, &batched} {
			r.ElapsedMs = 0
			for i := range r.Anomalies {
				r.Anomalies[i].Description, r.Anomalies[i].Ops = "", nil
			}
		}
		if !reflect.DeepEqual(whole, batched) {
			t.Errorf("%s: whole %s %v %q %+v\nbatched %s %v %q %+v", name, whole.Verdict, whole.Counts, whole.Summary, whole.Anomalies,
				batched.Verdict, batched.Counts, batched.Summary, batched.Anomalies)
		}
	}
}
