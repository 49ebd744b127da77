package queue

import (
	"fmt"
	"sort"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// checkRedelivery holds the delivery counts (NumDelivered of each
// delivery's metadata) of every message of a durable pull consumer to the
// acks, naks and ack waits the history records.
//
//   - beyond_max_deliver: a delivery count above the consumer's MaxDeliver
//     ("the maximum number of times a specific message will be delivered",
//     nats-server consumer.go; a message at it is no longer redelivered).
//   - count_not_increasing: delivery B after delivery A (A.complete <
//     B.invoke) of the same message with B's count not above A's. The
//     server counts every redelivery, and since 2.11 a replicated consumer
//     sends a message only once the delivered state (count included) has
//     quorum, so a new leader continues the count (consumer.go
//     replicateDeliveries, filestore.go UpdateDelivered).
//   - early: B, the next delivery after A, arriving sooner than the ack wait
//     after A's fetch began, while the consumer was stable (see unstable),
//     with no nak of the message left to explain it. The server redelivers
//     a message only once AckWait has passed since it last sent it
//     (consumer.go trackPending resets the pending timestamp, checkPending),
//     and it sent A after A's fetch began, unless a nak queued it at once.
//     Any nak of the message does, whichever delivery it names: processNak
//     (nats-server v2.15.3 consumer.go) checks only that the nak's delivery
//     sequence is above the ack floor and the stream sequence still pending
//     (trackPending keeps the first delivery's sequence), so a late nak of
//     an earlier delivery redelivers the current one. A nak queues one
//     redelivery, so each early redelivery needs a nak of its own sent
//     before it arrived.
//   - dropped: a delivered message with no ack of any kind that could have
//     arrived, while the consumer's drain ended with nothing pending and
//     nothing awaiting an ack: the consumer forgot a message it never got
//     an ack for. Unknown with a limited MaxDeliver unless the last count
//     reached it (deliveries may have been used up unseen).
func checkRedelivery(ix *index, r *result) {
	unstable := make([][]span, len(ix.c.Consumers))
	for c := range unstable {
		unstable[c] = ix.unstable(c)
	}
	ix.groups(func(ds []delivery) {
		r.Counts["messages"]++
		if len(ds) > 1 {
			r.Counts["redelivered_messages"]++
		}
		r.Counts["deliveries"] += len(ds)
		acks := ix.acksOf(ds[0].cons, ds[0].seq)
		ix.countRules(r, ds)
		ix.earlyRule(r, ds, acks, unstable[ds[0].cons], "early")
		ix.droppedRule(r, ds, acks)
	})
	n := r.Counts["beyond_max_deliver"] + r.Counts["count_not_increasing"] + r.Counts["early"] + r.Counts["dropped"]
	r.summarize(fmt.Sprintf("%s with delivery counts the acks, naks and ack waits do not explain (%d beyond MaxDeliver, %d counts not increasing, %d redelivered before the ack wait, %d dropped unacknowledged)",
		plural(n, "anomaly"), r.Counts["beyond_max_deliver"], r.Counts["count_not_increasing"], r.Counts["early"], r.Counts["dropped"]),
		fmt.Sprintf("%d deliveries of %d messages (%d redelivered) consistent with acks, naks and the %s ack wait",
			r.Counts["deliveries"], r.Counts["messages"], r.Counts["redelivered_messages"], ix.o.AckWait.D()))
}

// countRules checks MaxDeliver and that counts grow along precedence.
func (ix *index) countRules(r *result, ds []delivery) {
	// ds is in complete order; top[k] is the delivery with the highest
	// count among ds[:k+1].
	top := make([]int, len(ds))
	for k, d := range ds {
		if ix.o.MaxDeliver > 0 && d.count > uint64(ix.o.MaxDeliver) {
			r.flag("beyond_max_deliver", func() (string, []int) {
				return fmt.Sprintf("consumer %s delivered sequence %d with count %d, above MaxDeliver %d",
					ix.consumerName(d.cons), d.seq, d.count, ix.o.MaxDeliver), []int{int(d.op)}
			})
		}
		top[k] = k
		if k > 0 && ds[top[k-1]].count >= d.count {
			top[k] = top[k-1]
		}
		if d.count > 1 && k == 0 {
			r.Counts["first_seen_redelivered"]++ // earlier deliveries never reached a worker
		}
		// The deliveries that precede d end strictly before d's invoke.
		p := sort.Search(len(ds), func(i int) bool { return ds[i].complete >= d.invoke })
		if p == 0 {
			continue
		}
		if a := ds[top[p-1]]; a.count >= d.count {
			r.flag("count_not_increasing", func() (string, []int) {
				return fmt.Sprintf("consumer %s delivered sequence %d with count %d after a delivery with count %d had been received",
					ix.consumerName(d.cons), d.seq, d.count, a.count), []int{int(a.op), int(d.op)}
			})
		}
	}
}

// earlyRule flags a redelivery that came before the ack wait of the
// delivery it follows, unless the consumer was not stable or a nak of the
// message not spent on an earlier one was sent before it arrived. kind
// names the finding; wqConcurrent limits it to a second worker holding the
// message (the work-queue checker's use).
func (ix *index) earlyRule(r *result, ds []delivery, acks []ackRec, unstable []span, kind string) {
	wait := ix.o.AckWait.D().Nanoseconds()
	naks := nakBudget{acks: acks}
	for _, b := range ds {
		p := sort.Search(len(ds), func(i int) bool { return ds[i].complete >= b.invoke })
		if p == 0 {
			continue
		}
		a := ds[p-1] // the latest delivery received before b was asked for
		if kind == wqConcurrent && a.client == b.client {
			continue
		}
		if b.complete+sampleSlackNanos >= a.invoke+wait {
			continue
		}
		if overlaps(unstable, a.invoke, b.complete) {
			r.Counts[kind+"_excused"]++ // a leader may have changed: allowed
			continue
		}
		if naks.spend(b.complete) {
			continue
		}
		whom := "again"
		if kind == wqConcurrent {
			whom = fmt.Sprintf("to worker %d while worker %d held it", b.client, a.client)
		}
		r.flag(kind, func() (string, []int) {
			return fmt.Sprintf("consumer %s delivered sequence %d %s, %s after that worker's fetch, within the %s ack wait, with no nak of it left to explain it and no leader change seen",
				ix.consumerName(b.cons), b.seq, whom, msOf(b.complete-a.invoke), ix.o.AckWait.D()), []int{int(a.op), int(b.op)}
		})
	}
}

// nakBudget hands out the naks of one message, each at most once: a nak puts the
// message on the redelivery queue once (processNak skips one already
// queued), so it explains one early redelivery. acks is in invoke order.
type nakBudget struct {
	acks  []ackRec
	next  int // acks[:next] were looked at
	sent  int // naks among them that may have reached the server
	spent int
}

// spend takes a nak sent (invoked) strictly before t that no earlier
// redelivery took, and says whether there was one. Calls come in
// increasing t, so any unspent nak sent before t is as good as another.
func (n *nakBudget) spend(t int64) bool {
	for ; n.next < len(n.acks) && n.acks[n.next].invoke < t; n.next++ {
		if k := n.acks[n.next]; k.typ == OpNak && k.outcome != history.Fail {
			n.sent++
		}
	}
	if n.spent < n.sent {
		n.spent++
		return true
	}
	return false
}

// droppedRule flags a message that was never acknowledged in a way that
// could have arrived, on a consumer that ended with nothing pending.
func (ix *index) droppedRule(r *result, ds []delivery, acks []ackRec) {
	c := int(ds[0].cons)
	if !ix.drained(c) {
		return
	}
	for _, k := range acks {
		if (k.typ == OpAck || k.typ == OpAckSync) && k.outcome != history.Fail {
			return
		}
	}
	last := ds[len(ds)-1]
	if ix.o.MaxDeliver > 0 {
		for _, d := range ds {
			if d.count >= uint64(ix.o.MaxDeliver) {
				return // its deliveries are used up: no longer pending
			}
		}
	}
	describe := func() (string, []int) {
		return fmt.Sprintf("consumer %s delivered sequence %d (last count %d) and never got an ack for it, yet its drain found nothing pending",
			ix.consumerName(last.cons), last.seq, last.count), []int{int(last.op), ix.drains[c]}
	}
	if ix.o.MaxDeliver > 0 {
		r.unsure("dropped_or_exhausted", "with a limited MaxDeliver a message may use up its deliveries unseen", describe)
		return
	}
	r.flag("dropped", describe)
}
