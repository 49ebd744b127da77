package queue

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

const wqConcurrent = "concurrent"

// checkWorkQueue holds a work-queue stream to its two promises (nats-server
// stream.go WorkQueuePolicy; JetStream docs "Retention policies"):
//
//   - removal: a message whose AckSync was confirmed is gone from the
//     stream read back after the drain (acked_not_removed); and once the
//     consumer's drain ended with nothing pending and nothing awaiting an
//     ack, no message is left at all (not_removed), except one whose count
//     reached MaxDeliver (kept, unacknowledged). With a limited MaxDeliver a
//     left message whose seen count is below it is unknown.
//   - exclusivity (concurrent): while one worker holds a message (from its
//     fetch until its nak, or the ack wait), no other worker receives it.
//     Judged like the redelivery checker's early rule: another worker's
//     delivery sooner than the ack wait after the holder's fetch, while the
//     consumer was stable, with no nak of the message left to explain it (a
//     late nak of an earlier delivery hands the message on at once too).
func checkWorkQueue(ix *index, r *result) {
	stable := ix.unstable(0)
	ix.groups(func(ds []delivery) {
		ix.earlyRule(r, ds, ix.acksOf(ds[0].cons, ds[0].seq), stable, wqConcurrent)
	})
	for _, e := range ix.c.Stream {
		r.Counts["left_in_stream"]++
		ix.leftInStream(r, e)
	}
	r.summarize(fmt.Sprintf("%s left in the work queue after their ack (%d after a confirmed AckSync), %s delivered to a second worker while the first held them",
		plural(r.Counts["acked_not_removed"]+r.Counts["not_removed"], "message"), r.Counts["acked_not_removed"], plural(r.Counts[wqConcurrent], "message")),
		fmt.Sprintf("acknowledged messages removed (%d left in the stream, none acknowledged), no message held by two workers at once", r.Counts["left_in_stream"]))
}

// leftInStream judges one message still in the work-queue stream.
func (ix *index) leftInStream(r *result, e history.Entry) {
	var seen uint64
	for _, d := range ix.delsOf(0, e.Seq) {
		seen = max(seen, d.count)
	}
	for _, k := range ix.acksOf(0, e.Seq) {
		if k.typ == OpAckSync && k.outcome == history.OK {
			r.flag("acked_not_removed", func() (string, []int) {
				return fmt.Sprintf("%s (sequence %d) is still in the work-queue stream after its AckSync was confirmed", e.Value, e.Seq), []int{int(k.op)}
			})
			return
		}
	}
	describe := func() (string, []int) {
		return fmt.Sprintf("%s (sequence %d) is still in the work-queue stream although the drain found nothing pending", e.Value, e.Seq), []int{ix.drains[0]}
	}
	switch {
	case !ix.allDrained():
		r.Counts["still_pending"]++
	case ix.o.MaxDeliver > 0 && seen >= uint64(ix.o.MaxDeliver):
		r.Counts["kept_at_max_deliver"]++
	case ix.o.MaxDeliver > 0:
		r.unsure("not_removed_or_exhausted", "with a limited MaxDeliver a message may use up its deliveries unseen", describe)
	default:
		r.flag("not_removed", describe)
	}
}
