package kvcheck

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Pieces the interval bounds refute are confirmed by porcupine, and the
// counts say so.
func TestRefutedPiecesAreConfirmed(t *testing.T) {
	for _, name := range []string{"stale_read", "ryw_seed", "monotonic", "spurious_10071", "future_read"} {
		r := NewLinearizability(checker.Options{}).Check(loadFixture(t, name))
		if r.Verdict != checker.Invalid || r.Counts["pieces_refuted"] == 0 ||
			r.Counts["pieces_refuted_confirmed"] != r.Counts["pieces_refuted"] || r.Counts["pieces_refuted_unconfirmed"] != 0 {
			t.Errorf("%s: %s %v", name, r.Verdict, r.Counts)
		}
	}
}

// When porcupine cannot confirm a refutation in time, the bounds' proof
// stands, and the summary says it stands alone.
func TestUnconfirmedRefutationIsSaid(t *testing.T) {
	defer func(f func(porcupine.Model, []porcupine.Operation, time.Duration) porcupine.CheckResult) {
		searchPiece = f
	}(searchPiece)
	searchPiece = func(porcupine.Model, []porcupine.Operation, time.Duration) porcupine.CheckResult {
		return porcupine.Unknown
	}
	r := NewLinearizability(checker.Options{}).Check(loadFixture(t, "stale_read"))
	if r.Verdict != checker.Invalid || r.Counts["pieces_refuted_unconfirmed"] != 1 || !strings.Contains(r.Summary, "refuted by the interval bounds alone") ||
		len(r.Anomalies) != 1 || !strings.Contains(r.Anomalies[0].Description, "porcupine did not confirm it") {
		t.Errorf("%s %v: %s; %+v", r.Verdict, r.Counts, r.Summary, r.Anomalies)
	}
}

// A refutation porcupine disagrees with is an internal error, and the key
// is left undecided: never a silent verdict either way.
func TestRefutationDisagreementIsInternalError(t *testing.T) {
	defer func(f func([]*linOp) ([]*linOp, []refutation)) { narrow = f }(narrow)
	narrow = func(ops []*linOp) ([]*linOp, []refutation) {
		kept, rs := tighten(ops)
		if ops[0].key == "k1" {
			rs = append(rs, refutation{op: kept[len(kept)-1], why: "a bogus refutation"})
		}
		return kept, rs
	}
	r := NewLinearizability(checker.Options{}).Check(loadFixture(t, "clean"))
	if r.Verdict != checker.Unknown || r.Counts["internal_errors"] != 1 || len(r.InternalErrors) != 1 ||
		!strings.Contains(r.InternalErrors[0], "a bogus refutation") || !strings.Contains(r.Reason, "internal error") ||
		r.Counts["keys_illegal"] != 0 || r.Counts["keys_unknown"] != 1 {
		t.Errorf("%s %v: %s; %q", r.Verdict, r.Counts, r.Reason, r.InternalErrors)
	}
}

// Porcupine answering illegal, then finding a linearization when re-run to
// explain it, is an internal error too.
func TestExplainDisagreementIsInternalError(t *testing.T) {
	defer func(f func(porcupine.Model, []porcupine.Operation, time.Duration) porcupine.CheckResult) {
		searchPiece = f
	}(searchPiece)
	defer noDirect()()
	searchPiece = func(m porcupine.Model, ops []porcupine.Operation, d time.Duration) porcupine.CheckResult {
		if ops[0].Input.(*linOp).key == "k0" {
			return porcupine.Illegal
		}
		return porcupine.CheckOperationsTimeout(m, ops, d)
	}
	r := NewLinearizability(checker.Options{}).Check(loadFixture(t, "clean"))
	if r.Verdict != checker.Unknown || r.Counts["internal_errors"] != 1 || !strings.Contains(r.InternalErrors[0], "then found one when re-run") ||
		r.Counts["keys_illegal"] != 0 {
		t.Errorf("%s %v: %s; %q", r.Verdict, r.Counts, r.Reason, r.InternalErrors)
	}
}

// Found by the long differential run: the get of revision 1 is refuted
// through a bound (revision 1's write must follow the not-found get at
// 2000) set by an op in another piece. The witness must span that piece,
// or porcupine, shown the get's piece alone, finds it linearizable.
func TestRefutationWitnessSpansPieces(t *testing.T) {
	ops := parseOps(t, `{"client":1,"type":"get","key":"k","outcome":"ok","err":"not_found","invoke":0,"complete":1000}
{"client":0,"type":"get","key":"k","outcome":"ok","err":"not_found","invoke":2000,"complete":2000}
{"client":1,"type":"create","key":"k","value":"a","rev":1,"outcome":"ok","invoke":1000,"complete":1000}
{"client":1,"type":"put","key":"k","value":"b","rev":2,"outcome":"ok","invoke":1000,"complete":1000}
{"client":0,"type":"get","key":"k","value":"a","rev":1,"outcome":"ok","invoke":1000,"complete":2000}`)
	h := history.History{Ops: ops, Stream: []history.Entry{{Seq: 1, Key: "k", Value: "a"}, {Seq: 2, Key: "k", Value: "b"}}, StreamComplete: true}
	r := NewLinearizability(checker.Options{ChunkOps: 1}).Check(h)
	if r.Verdict != checker.Invalid || len(r.InternalErrors) != 0 || r.Counts["pieces"] < 2 ||
		r.Counts["pieces_refuted_confirmed"] != r.Counts["pieces_refuted"] {
		t.Errorf("%s %v: %s %q", r.Verdict, r.Counts, r.Summary, r.InternalErrors)
	}
}

// noDirect turns the revision-order witness off, so that every piece goes
// to porcupine; call the result to turn it back on.
func noDirect() func() {
	linearize = func([]*linOp) bool { return false }
	return func() { linearize = linearizeByRevision }
}

// TestRunJobsRaisesAWorkersPanic: a panic in a linearizability worker
// reaches the caller's goroutine, where Guard makes it an unknown verdict,
// instead of ending the process.
func TestRunJobsRaisesAWorkersPanic(t *testing.T) {
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "linearizability worker") {
			t.Fatalf("recovered %v; want the worker's panic", p)
		}
	}()
	runJobs(porcupine.Model{}, []linJob{{refuted: &refutation{}}}, 2, func() (time.Duration, bool) { panic("boom") })
}
