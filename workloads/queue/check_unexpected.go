package queue

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// checkUnexpected: every value a consumer received or the stream holds was
// published, and not refused at every attempt.
//
//   - unexpected_delivery, unexpected_in_stream: a value no producer
//     published (no attempt of any outcome).
//   - failed_publish_applied: a value delivered or in the read-back whose
//     every publish attempt failed definitely (outcome fail: the server
//     refused it with a JetStream API error, or nothing took the request;
//     the producer's recordErr (client.Classify) records a timeout or
//     an error it cannot place as info, and Load refuses a fail it could
//     not have recorded). A refused publish stores nothing, so its value
//     must never appear; one acknowledged or indeterminate attempt
//     (retries share the Nats-Msg-Id) makes it expected. kv-update's failed_write_applied, for messages.
func checkUnexpected(ix *index, r *result) {
	for _, d := range ix.dels {
		if d.val >= 0 && ix.vals[d.val].published {
			continue
		}
		r.flag("unexpected_delivery", func() (string, []int) {
			op := ix.op(d.op)
			return fmt.Sprintf("consumer %s received %q at stream sequence %d, which no producer published", op.M.Consumer, op.M.Value, d.seq), []int{int(d.op)}
		})
	}
	for _, e := range ix.c.Stream {
		if v, ok := ix.byValue[e.Value]; ok && ix.vals[v].published {
			continue
		}
		r.flag("unexpected_in_stream", func() (string, []int) {
			return fmt.Sprintf("the stream holds %q at sequence %d, which no producer published", e.Value, e.Seq), nil
		})
	}
	for v := range ix.vals {
		if rec := &ix.vals[v]; rec.published && rec.outcome == history.Fail && (rec.delivered != 0 || rec.inStream) {
			ix.failedApplied(r, rec)
		}
	}
	r.Counts["deliveries"] = len(ix.dels)
	r.Counts["stream_entries"] = len(ix.c.Stream)
	var found []string
	if n := r.Counts["unexpected_delivery"] + r.Counts["unexpected_in_stream"]; n > 0 {
		found = append(found, fmt.Sprintf("%s that nobody published (%d delivered, %d in the stream)",
			plural(n, "value"), r.Counts["unexpected_delivery"], r.Counts["unexpected_in_stream"]))
	}
	if n := r.Counts["failed_publish_applied"]; n > 0 {
		found = append(found, fmt.Sprintf("%s refused at every publish attempt, yet delivered or stored", plural(n, "value")))
	}
	r.summarize(strings.Join(found, "; "),
		fmt.Sprintf("every one of %d deliveries and %d stored messages was published, and not refused at every attempt", len(ix.dels), len(ix.c.Stream)))
}

// failedApplied flags a value whose every publish failed definitely but
// that was delivered or stored.
func (ix *index) failedApplied(r *result, rec *valueRec) {
	r.flag("failed_publish_applied", func() (string, []int) {
		first := ix.op(rec.firstOp)
		where := fmt.Sprintf("the stream holds it at sequence %d", rec.minSeq())
		ops := []int{int(rec.firstOp)}
		if rec.seqOp >= 0 {
			d := ix.op(rec.seqOp)
			where = fmt.Sprintf("consumer %s received it at sequence %d", d.M.Consumer, d.M.Seq)
			ops = append(ops, int(rec.seqOp))
		}
		return fmt.Sprintf("every publish of %s failed definitely (the first: %s), yet %s", rec.value, refusal(first), where), ops
	})
}

// refusal says how a failed publish was refused.
func refusal(op *Op) string {
	if op.ErrMsg != "" {
		return op.ErrMsg
	}
	return fmt.Sprintf("%s, code %d", op.Err, op.ErrCode)
}
