package kvcheck

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

var (
	simLong = flag.Bool("sim.long", false, "run the differential test on 100,000 simulated histories instead of 1,500")
	simSeed = flag.Uint64("sim.seed", 2026, "seed of the differential test's simulations")
)

// TestDifferential checks small tie-heavy histories of a linearizable CAS
// KV (tieSimulate), two in three of them damaged (perturb), three ways:
//
//   - the linearizability checker, plain porcupine on each key's untouched
//     ops and the brute-force oracle agree on every key (on an incomplete
//     stream the oracle is exact where the model over-approximates, so
//     there it may only be stricter);
//   - every anomaly a direct checker reports that implies a
//     non-linearizable key (session, stale-read, a stale_read or 10071
//     spurious rejection, a double-success CAS) is on a key the oracle
//     finds non-linearizable;
//   - stale-read, session and wrong-last-seq match their own brute-force
//     oracles (oracle_test.go) count for count;
//
// and an undamaged history is valid in every checker.
//
//	go test ./checker/ -run TestDifferential -sim.long [-sim.seed N]
func TestDifferential(t *testing.T) {
	n := 1500
	if *simLong {
		n = 100_000
	}
	// Once as the checker runs, once with every piece sent to porcupine
	// (the revision-order witness off), so that both paths are compared.
	for _, direct := range []bool{true, false} {
		t.Run(fmt.Sprintf("direct=%v", direct), func(t *testing.T) {
			if !direct {
				defer noDirect()()
			}
			differential(t, n)
		})
	}
}

func differential(t *testing.T, n int) {
	r := rand.New(rand.NewPCG(*simSeed, 12))
	tally := map[string]int{}
	failures := 0
	for i := 0; i < n && failures < 5; i++ {
		cfg := tieSimConfig{Clients: 1 + r.IntN(4), Keys: 1 + r.IntN(2), Ops: 3 + r.IntN(14), MaxDur: r.IntN(3), MaxGap: r.IntN(2),
			PutRate: 0.2, InfoRate: 0.15, SpuriousRate: 0.15}
		h := tieSimulate(cfg, r)
		how := "clean"
		if r.IntN(3) > 0 {
			how = perturb(&h, r)
		}
		tally[how]++
		if msg := differ(h, how, r.IntN(4)+1, tally); msg != "" {
			failures++
			t.Errorf("history %d (%s): %s\n%s", i, how, msg, dumpHistory(h))
		}
	}
	t.Logf("%d histories: %v", n, tally)
	for _, k := range []string{"clean", "stale get", "double success", "10164 as 10071", "moved", "stream cut",
		"key illegal", "key legal", "ties", "zero-length", "flagged stale_read", "flagged read_your_writes",
		"flagged monotonic_reads", "flagged spurious_10071", "flagged attribution stale_read", "flagged cas_violation"} {
		if tally[k] == 0 {
			t.Errorf("no history exercised %q: %v", k, tally)
		}
	}
}

// differ returns what disagrees on h, or "".
func differ(h history.History, how string, chunk int, tally map[string]int) string {
	if err := h.Validate(); err != nil {
		return "the simulation made a malformed history: " + err.Error()
	}
	countTies(h, tally)
	results := map[string]checker.Result{}
	for _, res := range Run(h, All(checker.Options{ChunkOps: chunk, MaxExamples: 1000, Workers: 1, Timeout: time.Minute})) {
		results[res.Name] = res
	}
	lin := results[cLin]
	if lin.Counts["keys_unknown"] != 0 || len(lin.InternalErrors) != 0 {
		return fmt.Sprintf("linearizability undecided: %s %v", lin.Summary, lin.InternalErrors)
	}
	checkerIllegal := map[string]bool{}
	for _, a := range lin.Anomalies {
		checkerIllegal[a.Key] = true
	}
	if len(checkerIllegal) != lin.Counts["keys_illegal"] {
		return fmt.Sprintf("%d illegal keys but %d explained", lin.Counts["keys_illegal"], len(checkerIllegal))
	}
	oracleIllegal := map[string]bool{}
	model := kvPieceModel()
	for key, ops := range bfPrepare(h) {
		oracle := bfLinearizable(ops)
		plain := porcupine.CheckOperationsTimeout(model, plainOperations(key, ops), 10*time.Second)
		switch {
		case plain == porcupine.Unknown:
			return "plain porcupine timed out on key " + key
		case (plain == porcupine.Ok) == checkerIllegal[key]:
			return fmt.Sprintf("key %s: the checker says illegal=%v, plain porcupine %s", key, checkerIllegal[key], plain)
		case oracle && plain != porcupine.Ok:
			return fmt.Sprintf("key %s: the oracle finds a linearization, porcupine does not", key)
		case !oracle && plain == porcupine.Ok && h.StreamComplete:
			return fmt.Sprintf("key %s: porcupine finds a linearization, the oracle does not", key)
		case !oracle && plain == porcupine.Ok:
			tally["oracle stricter than the model"]++
		}
		if oracle {
			tally["key legal"]++
		} else {
			tally["key illegal"]++
			oracleIllegal[key] = true
		}
	}
	for _, name := range []string{cSession, cStale, cAttrib, cIntegrity} {
		res := results[name]
		for _, a := range res.Anomalies {
			kind := impliesIllegal(name, a, h.Ops)
			if kind == "" {
				continue
			}
			tally["flagged "+kind]++
			if !oracleIllegal[a.Key] {
				return fmt.Sprintf("%s reports %s on key %s, which the oracle finds linearizable: %s", name, a.Kind, a.Key, a.Description)
			}
		}
	}
	if msg := matchCountOracles(h, results); msg != "" {
		return msg
	}
	if how == "clean" {
		for name, res := range results {
			if res.Verdict != checker.Valid && !(name == cSession && res.Counts["gets"] == 0) && !(name == cStale && res.Counts["gets"] == 0) {
				return fmt.Sprintf("undamaged history: %s is %s: %s %s", name, res.Verdict, res.Summary, res.Reason)
			}
		}
	}
	return ""
}

// impliesIllegal names the anomaly if it proves its key non-linearizable.
func impliesIllegal(checker string, a checker.Anomaly, ops []history.Op) string {
	switch {
	case checker == cSession, checker == cStale:
		return a.Kind
	case checker == cAttrib && a.Kind == clsStale:
		return "attribution stale_read"
	case checker == cAttrib && a.Kind == clsSpurious:
		for _, r := range a.Ops {
			if r.Type == history.Update && r.Outcome == history.Fail && errCode(&ops[r.Index]) == 10071 {
				return "spurious_10071"
			}
		}
	case checker == cIntegrity && a.Kind == "cas_violation" &&
		(strings.Contains(a.Description, "two writes took effect") || strings.Contains(a.Description, "the key already held")):
		return a.Kind
	}
	return ""
}

// matchCountOracles compares three checkers with their brute-force oracles.
func matchCountOracles(h history.History, results map[string]checker.Result) string {
	if got, want := results[cStale].Counts["stale_reads"], len(staleOracle(h.Ops)); got != want {
		return fmt.Sprintf("stale-read counts %d stale reads, its oracle %d", got, want)
	}
	ryw, mono := sessionOracle(h.Ops)
	if c := results[cSession].Counts; c["ryw_violations"] != ryw || c["monotonic_violations"] != mono {
		return fmt.Sprintf("session counts %v, its oracle ryw %d monotonic %d", c, ryw, mono)
	}
	if !h.StreamComplete {
		return "" // the attribution oracle reads concurrency from the stream alone
	}
	want := attributionOracle(h)
	for _, cls := range []string{clsStale, clsConcurrent, clsSpurious, clsUnknown} {
		if got := results[cAttrib].Counts[cls]; got != want[cls] {
			return fmt.Sprintf("wrong-last-seq counts %d %s, its oracle %d", got, cls, want[cls])
		}
	}
	return ""
}

// plainOperations hands porcupine a key's oracle ops as they are: real
// times, no narrowing, no pieces.
func plainOperations(key string, ops []bfOp) []porcupine.Operation {
	out := make([]porcupine.Operation, len(ops))
	for i, b := range ops {
		o := &linOp{idx: int32(b.idx), key: key, value: b.value, expected: b.expected, rev: b.rev,
			call: b.invoke, ret: b.complete, ocall: b.invoke, oret: b.complete}
		switch {
		case b.get:
			o.kind = kGet
			if b.notFound {
				o.out = oNotFound
			}
		case b.typ == history.Update:
			o.kind = kUpdate
		case b.typ == history.Put:
			o.kind = kPut
		default:
			o.kind = kCreate
		}
		switch {
		case b.rejected && b.typ == history.Update:
			o.out = oWrongSeq
		case b.rejected:
			o.out = oExists
		case b.unsettled:
			o.out = oUnknown
		}
		out[i] = porcupine.Operation{ClientId: i, Input: o, Output: o, Call: o.call, Return: o.ret}
	}
	return out
}

func countTies(h history.History, tally map[string]int) {
	ends := map[int64]bool{}
	for _, o := range h.Ops {
		ends[o.Complete] = true
		if o.Invoke == o.Complete {
			tally["zero-length"]++
		}
	}
	for _, o := range h.Ops {
		if ends[o.Invoke] {
			tally["ties"]++
			return
		}
	}
}

func dumpHistory(h history.History) string {
	var b strings.Builder
	for i, o := range h.Ops {
		complete := fmt.Sprint(o.Complete)
		if o.Complete == math.MaxInt64 {
			complete = "inf"
		}
		fmt.Fprintf(&b, "  %2d c%d %-6s %s v=%s exp=%d rev=%d %s %s [%d,%s]\n", i, o.Client, o.Type, o.Key, o.Value, o.ExpectedRev, o.Rev,
			o.Outcome, o.Err, o.Invoke/simTick, complete)
	}
	fmt.Fprintf(&b, "  stream (complete %v):", h.StreamComplete)
	for _, e := range h.Stream {
		fmt.Fprintf(&b, " %s=%s@%d", e.Key, e.Value, e.Seq)
	}
	return b.String()
}
