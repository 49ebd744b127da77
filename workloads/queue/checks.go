package queue

import (
	"cmp"
	"fmt"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// Checker names, in the order they are reported.
const (
	CheckLost        = "queue-lost"
	CheckUnexpected  = "queue-unexpected"
	CheckDuplicate   = "queue-duplicate"
	CheckOrder       = "queue-order"
	CheckRedelivery  = "queue-redelivery"
	CheckWorkQueue   = "queue-workqueue"
	CheckStall       = "queue-stall"
	CheckIntegrity   = "queue-stream-integrity"
	defaultExamples  = 10
	sampleSlackNanos = int64(50 * time.Millisecond)
)

// RunCheckers runs every checker that applies to the cell: the
// redelivery checker needs pull consumers, the work-queue checker a
// work-queue stream. maxExamples caps the examples kept per kind (0: 10).
func RunCheckers(c *Cell, maxExamples int) []checker.Result {
	return runChecks(c, maxExamples, func(string) bool { return true })
}

// check is one checker of the queue workload and whether it applies to a
// cell.
type check struct {
	applies bool
	run     func(*index, *result)
	name    string
}

func checks(c *Cell) []check {
	return []check{
		{true, checkLost, CheckLost},
		{true, checkUnexpected, CheckUnexpected},
		{true, checkDuplicate, CheckDuplicate},
		{true, checkOrder, CheckOrder},
		{c.Options.Pattern == Pull, checkRedelivery, CheckRedelivery},
		{c.Options.Retention == WorkQueue, checkWorkQueue, CheckWorkQueue},
		{true, checkStall, CheckStall},
		{true, checkIntegrity, CheckIntegrity},
	}
}

// runChecks runs the checkers that apply and that want names, each under
// checker.Guard, over one shared index.
func runChecks(c *Cell, maxExamples int, want func(name string) bool) []checker.Result {
	if maxExamples <= 0 {
		maxExamples = defaultExamples
	}
	start := time.Now()
	ix := newIndex(c)
	indexed := time.Since(start)
	var out []checker.Result
	for _, ch := range checks(c) {
		if !ch.applies || !want(ch.name) {
			continue
		}
		res := checker.Guard(ch.name, func() checker.Result {
			r := newResult(ch.name, ix, maxExamples)
			ch.run(ix, r)
			return r.Result
		})
		// The shared index is part of every checker's cost.
		res.ElapsedMs += float64(indexed.Microseconds()) / 1000
		out = append(out, res)
	}
	return out
}

// result is a checker.Result being built, its examples naming the cell's
// ops by index.
type result struct {
	*checker.Builder
	ix *index
}

func newResult(name string, ix *index, max int) *result {
	return &result{Builder: checker.NewBuilder(name, max), ix: ix}
}

// flag counts an anomaly of kind, makes the verdict invalid and keeps the
// example if fewer than max of its kind are kept; describe is only called
// then.
func (r *result) flag(kind string, describe func() (string, []int)) {
	r.Flag(kind, r.anomaly(describe))
}

// unsure counts a case the checker cannot decide, making a valid verdict
// unknown, with reason.
func (r *result) unsure(kind, reason string, describe func() (string, []int)) {
	r.Unsure(kind, reason, r.anomaly(describe))
}

// anomaly turns describe's words and op indexes into the example.
func (r *result) anomaly(describe func() (string, []int)) func() checker.Anomaly {
	if describe == nil {
		return nil
	}
	return func() checker.Anomaly {
		desc, ops := describe()
		a := checker.Anomaly{Description: desc}
		for _, n := range ops {
			if n >= 0 && n < len(r.ix.c.Ops) {
				op := &r.ix.c.Ops[n]
				a.Ops = append(a.Ops, checker.OpRef{Index: n, Op: op.Stored()})
				if a.Key == "" {
					a.Key = cmp.Or(op.M.Consumer, op.M.Producer)
				}
			}
		}
		return a
	}
}

// summarize sets the one-line summary: the finding when there is one,
// else what was looked at.
func (r *result) summarize(found, clean string) { r.Summarize(found, clean) }

// consumerName is consumer c's name.
func (ix *index) consumerName(c int32) string { return ix.c.Consumers[c] }

// op is the op at index n.
func (ix *index) op(n int32) *Op { return &ix.c.Ops[n] }

// plural writes "1 message" or "3 messages".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func msOf(ns int64) string { return fmt.Sprintf("%.0fms", float64(ns)/1e6) }
