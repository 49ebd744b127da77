package sources

import (
	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
)

// consumerChecks are the queue workload's checkers the consumers of the
// sourced stream answer to.
var consumerChecks = []string{queue.CheckLost, queue.CheckDuplicate, queue.CheckRedelivery}

// Check judges a stored sources cell from its files alone: mirror-copy
// (cells with a mirror), source-exactly-once, source-stall,
// workqueue-origin (work-queue cells), replica-divergence of the first
// origin (limits cells, when the finish read it) and the consumers'
// queue-lost, queue-duplicate and queue-redelivery.
func Check(dir string, opts checker.Options) ([]checker.Result, error) {
	c, err := Load(dir)
	if err != nil {
		return nil, err
	}
	max := opts.MaxExamples
	var out []checker.Result
	if c.Options.Mirror() != "" {
		out = append(out, checker.Guard(CheckMirror, func() checker.Result { return checkMirror(c, max) }))
	}
	var dropped map[string]bool
	out = append(out, checker.Guard(CheckSource, func() checker.Result {
		var r checker.Result
		r, dropped = checkSource(c, max)
		return r
	}))
	out = append(out, checker.Guard(CheckStall, func() checker.Result { return checkStall(c, max) }))
	if c.Options.Retention == WorkQueue {
		out = append(out, checker.Guard(CheckWorkQueue, func() checker.Result { return checkWorkQueue(c, max) }))
	} else if fileExists(dir, replicaread.File) {
		out = append(out, checker.Guard(replicas.NameDivergence, func() checker.Result { return replicaread.Judge(dir, opts) }))
	}
	if !fileExists(dir, queue.SettingsFile) {
		why := "the consumers were never set up (no " + queue.SettingsFile + ")"
		for _, n := range consumerChecks {
			out = append(out, checker.Result{Name: n, Verdict: checker.Unknown, Reason: why, Summary: why, Counts: map[string]int{}})
		}
		return out, nil
	}
	qc, err := queue.Load(dir)
	if err != nil {
		return nil, err
	}
	qc.Ops = consumerView(c, qc.Ops, dropped)
	res, err := queue.Judge(qc, consumerChecks, max)
	if err != nil {
		return nil, err
	}
	return append(out, res...), nil
}

// consumerView is the history as the queue's checkers see the sourced
// stream: each publish to an origin becomes a queue publish of its value,
// with no sequence (an origin's is not the sourced stream's). An
// acknowledged publish counts as indeterminate when no attempt stored its
// value for sure (a repeat the origin deduplicated), when
// source-exactly-once explained it as dropped as a duplicate id, and when
// the sourced stream, read back whole, lacks it: whether a message
// reached the sourced stream is the sources checks' to judge
// (source-exactly-once, origin_lost, workqueue-origin), so queue-lost
// answers for what the consumers received of what the stream holds. Op
// indexes are kept, so examples name the history's lines.
func consumerView(c *Cell, ops []queue.Op, dropped map[string]bool) []queue.Op {
	byValue, _ := published(c.Ops)
	inSourced := map[string]bool{}
	sourced := c.Stream(c.Options.Sourced())
	if sourced != nil && c.readGap(sourced.Name) == "" {
		for _, m := range sourced.Messages {
			inSourced[m.Value] = true
		}
	}
	for _, p := range c.Ops.Publishes {
		op := p.H
		op.Type, op.Data = queue.OpPublish, nil
		s := byValue[p.Value]
		// Whether a message reached the sourced stream at all is the
		// sources checks' to judge; the consumers answer for what it holds.
		gone := sourced != nil && c.readGap(sourced.Name) == "" && !inSourced[p.Value]
		if op.Outcome == history.OK && (dropped[p.Value] || s == nil || !s.acked || gone) {
			op.Outcome = history.Info
		}
		ops[p.Op] = queue.Op{Op: op, M: queue.Msg{Producer: p.Producer, Value: p.Value, Attempt: p.Attempt}}
	}
	return ops
}
