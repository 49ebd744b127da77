package queue

import (
	"cmp"
	"slices"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// A consumer that changes leader reloads its pending messages from its
// store, where a follower keeps each message's stored time rather than the
// time it was delivered (nats-server consumer.go setLeader, updateDelivered
// with pmsg.ts; filestore.go UpdateDelivered), so the new leader may
// redeliver at once, before the ack wait. Timing rules therefore only hold
// where the consumer was seen stable: outside every fault window and every
// moment its leader changed or could not be asked, each widened by the ack
// wait.

// unstable returns consumer c's unstable intervals, sorted and merged.
func (ix *index) unstable(c int) []span {
	grace := ix.o.AckWait.D().Nanoseconds()
	var out []span
	for _, f := range ix.faults {
		out = append(out, span{f.start, f.end + grace, f.op})
	}
	var prev *Op
	for _, n := range ix.samples[c] {
		s := &ix.c.Ops[n]
		switch {
		case s.Outcome != history.OK:
			from := s.Invoke - int64(sampleEvery)
			if prev != nil {
				from = prev.Invoke
			}
			out = append(out, span{from, s.Complete + grace, n})
			continue
		case prev != nil && prev.M.Leader != "" && s.M.Leader != "" && prev.M.Leader != s.M.Leader:
			out = append(out, span{prev.Invoke, s.Complete + grace, n})
		}
		prev = s
	}
	slices.SortFunc(out, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	merged := out[:0]
	for _, s := range out {
		if k := len(merged) - 1; k >= 0 && s.start <= merged[k].end {
			merged[k].end = max(merged[k].end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// overlaps says whether [from, to] meets any of the sorted, merged spans.
func overlaps(spans []span, from, to int64) bool {
	// The first span that ends at or after from.
	i, _ := slices.BinarySearchFunc(spans, from, func(s span, t int64) int { return cmp.Compare(s.end, t) })
	return i < len(spans) && spans[i].start <= to
}
