package queue

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// checkOrder finds messages out of order.
//
//   - producer_order: values a and b of one producer, a acknowledged
//     strictly before b's first publish attempt began (a.complete <
//     b.invoke), and b stored at a lower stream sequence than a. A PubAck
//     means a holds its sequence before b is even sent, and a stream assigns
//     sequences in the order it stores messages. Only acknowledged values
//     are ordered before others: an indeterminate one may be stored later
//     than a value published after it.
//   - ordered_consumer: an ordered consumer handing over a stream sequence
//     not above the one before it (in the order received, which is
//     history.jsonl's order for one subscription). An ordered consumer
//     delivers the stream in sequence order, each message once, and nats.go
//     recreates it from the next sequence on a gap (nats.go js.go
//     checkOrderedDelivery/resetOrderedConsumer; ADR-17 "Ordered Consumer").
func checkOrder(ix *index, r *result) {
	checked := 0
	for _, vs := range ix.perProducer {
		checked += ix.producerOrder(r, vs)
	}
	r.Counts["values_checked"] = checked
	if ix.o.Pattern == Ordered {
		last := make([]uint64, len(ix.c.Consumers))
		lastOp := make([]int, len(ix.c.Consumers))
		for n := range ix.c.Ops {
			op := &ix.c.Ops[n]
			c, ok := ix.consumers[op.M.Consumer]
			if op.Type != OpDeliver || !ok || op.Outcome != history.OK {
				continue
			}
			r.Counts["ordered_deliveries"]++
			if op.M.Seq <= last[c] {
				prev, seq := last[c], op.M.Seq
				r.flag("ordered_consumer", func() (string, []int) {
					return fmt.Sprintf("ordered consumer %s handed over sequence %d after sequence %d", op.M.Consumer, seq, prev), []int{lastOp[c], n}
				})
			}
			last[c], lastOp[c] = max(last[c], op.M.Seq), n
		}
	}
	n := r.Counts["producer_order"] + r.Counts["ordered_consumer"]
	clean := fmt.Sprintf("every producer's %d stored values in publish order", checked)
	if ix.o.Pattern == Ordered {
		clean += fmt.Sprintf(", %d ordered deliveries in stream order", r.Counts["ordered_deliveries"])
	}
	r.summarize(fmt.Sprintf("%s out of order (%d in a producer's order in the stream, %d in an ordered consumer)",
		plural(n, "message"), r.Counts["producer_order"], r.Counts["ordered_consumer"]), clean)
}

// producerOrder checks one producer's values; it returns how many stored
// values it looked at.
func (ix *index) producerOrder(r *result, vs []int32) int {
	acked := make([]int32, 0, len(vs))
	stored := make([]int32, 0, len(vs))
	for _, v := range vs {
		rec := &ix.vals[v]
		if rec.minSeq() == 0 {
			continue
		}
		stored = append(stored, v)
		if rec.okOp >= 0 {
			acked = append(acked, v)
		}
	}
	slices.SortFunc(acked, func(a, b int32) int { return cmp.Compare(ix.vals[a].okEnd, ix.vals[b].okEnd) })
	slices.SortFunc(stored, func(a, b int32) int { return cmp.Compare(ix.vals[a].firstInvoke, ix.vals[b].firstInvoke) })
	// Sweep b in invoke order; everything acknowledged strictly before b's
	// invoke is folded into the highest sequence seen so far.
	j, top := 0, int32(-1)
	for _, b := range stored {
		rb := &ix.vals[b]
		for ; j < len(acked) && ix.vals[acked[j]].okEnd < rb.firstInvoke; j++ {
			if a := acked[j]; top < 0 || ix.ackedSeq(a) > ix.ackedSeq(top) {
				top = a
			}
		}
		if top < 0 || top == b || rb.minSeq() > ix.ackedSeq(top) {
			continue
		}
		a := top
		r.flag("producer_order", func() (string, []int) {
			ra := &ix.vals[a]
			return fmt.Sprintf("%s is stored at sequence %d, before %s at %d, although %s was acknowledged before %s was published",
				rb.value, rb.minSeq(), ra.value, ix.ackedSeq(a), ra.value, rb.value), []int{int(ra.okOp), int(rb.firstOp)}
		})
	}
	return len(stored)
}

// ackedSeq is the sequence an acknowledged value's PubAck gave, or the
// lowest one known when the PubAck carried none.
func (ix *index) ackedSeq(v int32) uint64 {
	rec := &ix.vals[v]
	if rec.okOp >= 0 && ix.op(rec.okOp).M.Seq > 0 {
		return ix.op(rec.okOp).M.Seq
	}
	return rec.minSeq()
}
