package queue

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// checkDuplicate finds messages delivered or stored twice where JetStream
// promises once.
//
//   - after_confirmed_ack: a delivery to consumer c of stream sequence s
//     that began (its Fetch's invoke) strictly after an AckSync of s on c
//     completed with the server's reply. In a replicated consumer the
//     server sends that reply only once the ack is applied from the
//     consumer's raft log (nats-server consumer.go updateAcks/addAckReply,
//     jetstream_cluster.go processReplicatedAckLocked), and an acknowledged
//     message is no longer pending (needAck), so it must not be delivered
//     again. A redelivery after a plain Ack is allowed: the ack may never
//     have arrived (counted as redelivered_after_plain_ack).
//   - stored_twice: one value (one Nats-Msg-Id) at two stream sequences
//     while all its publish attempts fall within the stream's duplicate
//     window; the server drops a publish whose id it stored within the
//     window (nats-server stream.go checkMsgId/storeMsgId, rebuilt from the
//     store on a leader change by rebuildDedupe). Outside the window two
//     copies are allowed (counted as stored_twice_outside_window).
func checkDuplicate(ix *index, r *result) {
	ix.groups(func(ds []delivery) {
		confirmed, plain := int32(-1), int32(-1)
		var confirmedAt, plainAt int64
		for _, a := range ix.acksOf(ds[0].cons, ds[0].seq) {
			switch {
			case a.typ == OpAckSync && a.outcome == history.OK && (confirmed < 0 || a.complete < confirmedAt):
				confirmed, confirmedAt = a.op, a.complete
			case a.typ == OpAck && a.outcome != history.Fail && (plain < 0 || a.complete < plainAt):
				plain, plainAt = a.op, a.complete
			}
		}
		for _, d := range ds {
			switch {
			case confirmed >= 0 && d.invoke > confirmedAt:
				r.flag("after_confirmed_ack", func() (string, []int) {
					return fmt.Sprintf("consumer %s received %s (sequence %d, delivery %d) after its AckSync was confirmed %s earlier",
						ix.consumerName(d.cons), ix.op(d.op).M.Value, d.seq, d.count, msOf(d.invoke-confirmedAt)), []int{int(confirmed), int(d.op)}
				})
			case plain >= 0 && d.invoke > plainAt:
				r.Counts["redelivered_after_plain_ack"]++
			}
		}
	})
	window := ix.o.DuplicateWindow.D().Nanoseconds()
	for v := range ix.vals {
		rec := &ix.vals[v]
		if rec.seq2 == 0 {
			continue
		}
		if !rec.published || rec.lastEnd-rec.firstInvoke >= window {
			r.Counts["stored_twice_outside_window"]++
			continue
		}
		r.flag("stored_twice", func() (string, []int) {
			return fmt.Sprintf("%s (one Nats-Msg-Id) is stored at sequences %d and %d although its publishes span %s, within the %s duplicate window",
				rec.value, rec.seq, rec.seq2, msOf(rec.lastEnd-rec.firstInvoke), ix.o.DuplicateWindow.D()), []int{int(rec.firstOp), int(rec.seqOp), int(rec.seq2Op)}
		})
	}
	for _, op := range ix.c.Ops {
		if op.Type == OpPublish && op.Err == ErrDuplicate {
			r.Counts["deduplicated_publishes"]++
		}
	}
	r.summarize(fmt.Sprintf("%s delivered again after a confirmed AckSync, %s stored twice within the duplicate window",
		plural(r.Counts["after_confirmed_ack"], "message"), plural(r.Counts["stored_twice"], "value")),
		fmt.Sprintf("no delivery after a confirmed AckSync, no value stored twice (%d retried publishes deduplicated, %d redeliveries after a plain ack)",
			r.Counts["deduplicated_publishes"], r.Counts["redelivered_after_plain_ack"]))
}
