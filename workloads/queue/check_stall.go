package queue

import (
	"fmt"
	"slices"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// checkStall: after the heal (the end of the last fault window; the start
// of the run when there was none), a consumer with messages pending must
// keep delivering while workers ask for them.
//
//   - stalled: within a period its workers were active (the run, its
//     drain), a gap of more than StallBound between deliveries (or the
//     period's edges) that began while a sample showed messages pending
//     (NumPending + NumAckPending > 0) at least StallBound before the gap
//     ended. A message awaiting an ack is redelivered after the ack wait,
//     which StallBound exceeds.
//   - not_drained: the consumer's drain gave up with messages pending.
//     Unknown when the cell has no drain (interrupted).
func checkStall(ix *index, r *result) {
	bound := ix.o.StallBound.D().Nanoseconds()
	times := make([][]int64, len(ix.c.Consumers))
	for _, d := range ix.dels {
		times[d.cons] = append(times[d.cons], d.complete)
	}
	for c, name := range ix.c.Consumers {
		slices.Sort(times[c])
		periods := append([]span(nil), ix.runs...)
		if ix.drains[c] >= 0 {
			op := &ix.c.Ops[ix.drains[c]]
			periods = append(periods, span{op.Invoke, op.Complete, ix.drains[c]})
		}
		for _, p := range periods {
			ix.stallsIn(r, c, times[c], max(p.start, ix.heal), p.end, bound)
		}
		switch {
		case ix.drains[c] < 0:
			r.unsure("no_drain", "consumer "+name+" was never drained (an interrupted run)", nil)
		case !ix.drained(c):
			op := &ix.c.Ops[ix.drains[c]]
			r.flag("not_drained", func() (string, []int) {
				return fmt.Sprintf("consumer %s's drain %s with %d pending and %d awaiting an ack", name, op.ErrMsg, op.M.Pending, op.M.AckPending), []int{ix.drains[c]}
			})
		}
	}
	r.Counts["consumers"] = len(ix.c.Consumers)
	r.summarize(fmt.Sprintf("%s stalled after the heal (%d gaps over %s with messages pending, %d drains gave up)",
		plural(r.Counts["stalled"]+r.Counts["not_drained"], "time a consumer"), r.Counts["stalled"], ix.o.StallBound.D(), r.Counts["not_drained"]),
		fmt.Sprintf("every consumer kept delivering after the heal (no gap over %s with messages pending) and was drained", ix.o.StallBound.D()))
}

// stallsIn flags gaps over bound in consumer c's deliveries within
// [from, to] that began with messages pending.
func (ix *index) stallsIn(r *result, c int, times []int64, from, to, bound int64) {
	if from >= to {
		return
	}
	i, _ := slices.BinarySearch(times, from)
	prev := from
	for ; ; i++ {
		next := to
		if i < len(times) && times[i] <= to {
			next = times[i]
		}
		if next-prev > bound {
			if s := ix.pendingSample(c, prev, next-bound); s >= 0 {
				gapFrom, gapTo := prev, next
				r.flag("stalled", func() (string, []int) {
					op := &ix.c.Ops[s]
					return fmt.Sprintf("consumer %s delivered nothing for %s (%.1fs to %.1fs) with %d pending and %d awaiting an ack",
						ix.c.Consumers[c], msOf(gapTo-gapFrom), float64(gapFrom)/1e9, float64(gapTo)/1e9, op.M.Pending, op.M.AckPending), []int{s}
				})
			}
		}
		if next == to {
			return
		}
		prev = next
	}
}

// pendingSample is a sample of consumer c completed within [from, to] that
// shows messages pending, or -1.
func (ix *index) pendingSample(c int, from, to int64) int {
	for _, n := range ix.samples[c] {
		s := &ix.c.Ops[n]
		if s.Complete < from || s.Complete > to || s.Outcome != history.OK {
			continue
		}
		if s.M.Pending+s.M.AckPending > 0 {
			return n
		}
	}
	return -1
}
