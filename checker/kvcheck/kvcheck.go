// Package kvcheck holds kv-update's checkers: each judges a recorded
// history.History of KV operations. Each Checker looks for
// one named anomaly and answers valid, invalid or unknown, with counts, a
// capped list of examples and a one-line summary; Run collects the Results
// that go into results.json.
//
// Every checker is linear or n log n in the number of ops, so a history of
// a million ops is checked in seconds. The linearizability checker is the
// exception in theory (porcupine's search is exponential in the worst case)
// and is bounded by Options.Timeout.
//
// # Real-time order and ties
//
// Every checker orders ops by one rule, porcupine's: op A precedes op B
// only if A completed strictly before B was invoked (A.Complete <
// B.Invoke); ops with equal timestamps are concurrent, and so is a
// zero-length op (Invoke == Complete) with every op in flight at that
// instant. Porcupine sorts a call before a return at the same time
// (porcupine's checker.go, byTime), which is this rule. The checkers use
// precedes for it; the linearizability checker hands porcupine scaled
// times (scaleCall, scaleRet) that keep it.
//
// A client's own ops are in program order: by invoke time, ties in
// history order (the order they completed in, as recorded). That order
// only says which get supplied an update's expected revision; whether one
// op could have observed another is always decided by precedes.
//
// # Input
//
// Every checker first validates the history (Validate): a malformed one (a
// completion before its invocation, an unknown type, an ok write without
// its revision...) gets an unknown verdict whose reason names the bad line,
// never a verdict.
//
// # Long histories
//
// Every checker judges one key at a time (or one client and key), so a
// history too long to hold whole is judged in parts: a workload cuts it by
// key (history.Split; Options.PartOps says when), runs the checkers on
// each part in turn and puts their results together with Merge. The
// verdicts, counts and summaries are the whole history's
// (TestPartsMatchWhole; merge.go says what a part needs of the whole, and
// when a history cannot be cut). The check then holds one part at a time:
// its memory is bounded by the largest part, never by the run's length,
// unless one key alone is that long (a part cannot split a key).
package kvcheck

import (
	"fmt"
	"slices"
	"sort"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Checker looks at a history for one kind of anomaly.
type Checker interface {
	Name() string
	Check(h history.History) checker.Result
}

// All returns every checker, in the order they are reported.
func All(opts checker.Options) []Checker {
	return []Checker{
		NewSession(opts),
		NewStaleRead(opts),
		NewAttribution(opts),
		NewIntegrity(opts),
		NewLinearizability(opts),
	}
}

// Run runs the checkers one after the other on h. A checker that panics
// yields an unknown result naming the panic instead of killing the run.
func Run(h history.History, checkers []Checker) []checker.Result {
	out := make([]checker.Result, 0, len(checkers))
	for _, c := range checkers {
		out = append(out, runOne(h, c))
	}
	return out
}

func runOne(h history.History, c Checker) checker.Result {
	return checker.Guard(c.Name(), func() checker.Result { return c.Check(h) })
}

// refs builds OpRefs for op indices; negative and repeated indices are
// skipped.
func refs(ops []history.Op, idx ...int) []checker.OpRef {
	out := make([]checker.OpRef, 0, len(idx))
	for n, i := range idx {
		if slices.Contains(idx[:n], i) {
			continue
		}
		if i >= 0 && i < len(ops) {
			out = append(out, checker.OpRef{Index: i, Op: ops[i]})
		}
	}
	return out
}

// precedes reports whether an op that completed at complete precedes, in
// real time, an op invoked at invoke: only when strictly earlier. Equal
// timestamps are concurrent (see the package doc).
func precedes(complete, invoke int64) bool { return complete < invoke }

// isClientOp reports whether the op is a client operation a checker should
// look at: a key-value op (history.IsKV); fault records are not, nor the
// ops of kv-update's TTL keys, which kv-ttl judges.
func isClientOp(o *history.Op) bool {
	return history.IsKV(o.Type) && o.Client != history.NemesisClient
}

// errCode is the JetStream code of a wrong-last-sequence rejection, taken
// from ErrCode or, when that is missing, from the kind.
func errCode(o *history.Op) int {
	if o.ErrCode != 0 {
		return o.ErrCode
	}
	switch o.Err {
	case history.ErrWrongLastSeq:
		return 10071
	case history.ErrWrongLastSeqAny:
		return 10164
	}
	return 0
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p/100*float64(len(sorted))+0.999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

// histogram counts sorted-or-not values into buckets with the given upper
// bounds plus one open bucket; unit labels the bounds.
func histogram(values []float64, bounds []float64, unit string) []checker.Bucket {
	out := make([]checker.Bucket, len(bounds)+1)
	for i, b := range bounds {
		out[i] = checker.Bucket{Label: fmt.Sprintf("<=%g%s", b, unit), Upper: b}
	}
	out[len(bounds)] = checker.Bucket{Label: fmt.Sprintf(">%g%s", bounds[len(bounds)-1], unit), Open: true}
	for _, v := range values {
		i := sort.SearchFloat64s(bounds, v) // first bound >= v
		out[i].Count++
	}
	return out
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}
