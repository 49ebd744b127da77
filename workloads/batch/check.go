package batch

import (
	"fmt"
	"path/filepath"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Check judges a stored batch cell from its files alone: history.jsonl
// and ReadBackFile. Each check runs under checker.Guard, so a panic is an
// unknown result naming it. A cell without its read-back (it stopped
// before its Finish) is unknown, saying so. replica-divergence judges
// the copies every server held after the heal, when the finish saved them
// (ReadBack.Replicas).
func Check(dir string, opts checker.Options) ([]checker.Result, error) {
	ops, err := history.ReadOps(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		return nil, err
	}
	rec, err := FromHistory(ops)
	if err != nil {
		return nil, err
	}
	rb, ok, err := loadReadBack(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ReadBackFile, err)
	}
	if !ok {
		why := "the stream was not read back (no " + ReadBackFile + ": the cell stopped before its end)"
		rb = ReadBack{Detail: why}
	}
	out := []checker.Result{
		checker.Guard(CheckAtomic, func() checker.Result { return Atomic(rec.Batches, rb, opts.MaxExamples) }),
		checker.Guard(CheckIsolation, func() checker.Result {
			return Isolation(rec.Batches, rb, rec.Deliveries, rec.Snapshots, opts.MaxExamples)
		}),
	}
	if rb.Replicas {
		out = append(out, checker.Guard(replicas.NameDivergence, func() checker.Result { return replicaread.Judge(dir, opts) }))
	}
	return out, nil
}
