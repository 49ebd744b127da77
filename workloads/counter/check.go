package counter

import (
	"fmt"
	"path/filepath"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Check judges a stored counter cell from its files alone: history.jsonl
// and FinalFile. counter-reads runs only when every add was positive (the
// history says so): with both signs a counter may go down. A cell without
// its final values (it stopped before its Finish) is unknown, saying so.
// replica-divergence judges the copies every server held after the heal,
// when the finish saved them (Final.Replicas).
func Check(dir string, opts checker.Options) ([]checker.Result, error) {
	ops, err := history.ReadOps(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		return nil, err
	}
	adds, reads, err := FromHistory(ops)
	if err != nil {
		return nil, err
	}
	final, ok, err := loadFinal(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", FinalFile, err)
	}
	if !ok {
		final = Final{Values: map[string]int64{}, Detail: "the counters were not read (no " + FinalFile + ": the cell stopped before its end)"}
	}
	out := []checker.Result{
		checker.Guard(CheckTotal, func() checker.Result { return Total(adds, final, opts.MaxExamples) }),
		checker.Guard(CheckDedupe, func() checker.Result { return Dedupe(adds, final, opts.MaxExamples) }),
	}
	if positive(adds) {
		out = append(out, checker.Guard(CheckReads, func() checker.Result { return Reads(adds, reads, opts.MaxExamples) }))
	}
	if final.Replicas {
		out = append(out, checker.Guard(replicas.NameDivergence, func() checker.Result { return replicaread.Judge(dir, opts) }))
	}
	return out, nil
}

func positive(adds []Add) bool {
	for _, a := range adds {
		if a.Delta <= 0 {
			return false
		}
	}
	return true
}
