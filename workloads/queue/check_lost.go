package queue

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/checker"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// checkLost: every acknowledged publish must reach every consumer.
//
//   - lost: a publish acknowledged by a PubAck whose value no consumer ever
//     received and that is not in the stream read back after the drain. A
//     PubAck means the message was stored on a quorum (nats.go jetstream
//     Publish; JetStream "message acknowledgement" docs), so it must survive.
//     Unknown instead when the read-back is missing or incomplete, the
//     reason saying which (readBackGap).
//   - skipped: an acknowledged value that consumer c never received
//     although it was stored (another consumer received it, or it is in the
//     stream), while c's drain ended with the consumer reporting nothing
//     pending and nothing awaiting an ack. Every durable consumer delivers
//     the whole stream (DeliverAll), and an ordered consumer delivers every
//     sequence. Unknown instead when c was not drained, or when MaxDeliver
//     is limited (a message can use its deliveries up on fetches that were
//     never answered to the client).
//
// Indeterminate and failed publishes are never lost: they may or may not
// have been stored.
func checkLost(ix *index, r *result) {
	all := uint64(1)<<len(ix.c.Consumers) - 1
	acked, delivered := 0, 0
	for v := range ix.vals {
		rec := &ix.vals[v]
		if rec.outcome != history.OK {
			if rec.published && rec.delivered != 0 {
				r.Counts["unacknowledged_delivered"]++
			}
			continue
		}
		acked++
		if rec.delivered == all {
			delivered++
			continue
		}
		if rec.delivered == 0 && !rec.inStream {
			describe := func() (string, []int) {
				return fmt.Sprintf("%s was acknowledged at stream sequence %d but no consumer received it and it is not in the stream read back",
					rec.value, ix.op(rec.okOp).M.Seq), []int{int(rec.okOp)}
			}
			if ix.c.StreamComplete {
				r.flag("lost", describe)
			} else {
				r.unsure("unconfirmed", ix.c.readBackGap()+", so an acknowledged value no consumer received may still be stored", describe)
			}
			continue
		}
		ix.skipped(r, rec)
	}
	r.Counts["acknowledged"] = acked
	r.Counts["delivered_to_every_consumer"] = delivered
	consumers := plural(len(ix.c.Consumers), "consumer")
	r.summarize(
		fmt.Sprintf("%d of %d acknowledged messages lost (never delivered, not in the stream), %d skipped by a drained consumer",
			r.Counts["lost"], acked, r.Counts["skipped"]),
		fmt.Sprintf("all %d acknowledged messages delivered to each of %s", delivered, consumers))
	if r.Verdict != checker.Invalid && delivered < acked {
		r.Summary = fmt.Sprintf("%d of %d acknowledged messages delivered to each of %s; unknown: %s", delivered, acked, consumers, r.Reason)
	}
}

// skipped judges a stored, acknowledged value some consumer never received.
func (ix *index) skipped(r *result, rec *valueRec) {
	for c := range ix.c.Consumers {
		if rec.delivered&(1<<c) != 0 {
			continue
		}
		name := ix.c.Consumers[c]
		describe := func() (string, []int) {
			return fmt.Sprintf("%s was acknowledged and stored (sequence %d) but consumer %s never received it", rec.value, rec.minSeq(), name),
				[]int{int(rec.okOp), ix.drains[c]}
		}
		switch {
		case !ix.drained(c):
			r.unsure("undrained", "consumer "+name+" was not drained to the end, so what it never received may still be pending", describe)
		case ix.o.Pattern == Pull && ix.o.MaxDeliver > 0:
			r.unsure("skipped_or_exhausted", "with a limited MaxDeliver a message may use up its deliveries unseen", describe)
		default:
			r.flag("skipped", describe)
		}
	}
}
