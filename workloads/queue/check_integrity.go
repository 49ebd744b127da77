package queue

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// checkIntegrity compares the stream read back after the drain (from the
// leader) with what PubAcks and deliveries said about it.
//
//   - unknown when there is no read-back, or it is incomplete (fewer
//     messages than the stream's state counted, or stream.jsonl cut short).
//   - out_of_order: the read-back's sequences not strictly increasing.
//   - sequence_conflict: two values at one stream sequence, between the
//     read-back, the PubAcks and the deliveries' metadata: a sequence, once
//     assigned, names one message for good (a reused sequence is data loss).
//   - beyond_last_sequence: a PubAck or delivery at a sequence above the
//     stream's last sequence after the run: the stream went back in time.
//   - limits retention (nothing is ever removed): missing_from_stream, a
//     value that was acknowledged or delivered but is not in the read-back;
//     first_sequence, a first sequence other than 1.
//   - interest retention: retained, a message left after every consumer's
//     drain found nothing pending (each had acknowledged it; nats-server
//     stream.go InterestPolicy removes a message once all consumers acked
//     it), unless a consumer used up MaxDeliver on it.
func checkIntegrity(ix *index, r *result) {
	if !ix.c.StreamRead || ix.streamOp < 0 {
		r.unsure("no_readback", "the stream was not read back", nil)
		r.summarize("", "no read-back to compare")
		return
	}
	if !ix.c.StreamComplete {
		r.unsure("incomplete_readback", ix.c.readBackGap(), nil)
	}
	state := ix.op(int32(ix.streamOp))
	bySeq := make(map[uint64]string, len(ix.c.Stream)+len(ix.vals))
	var prev uint64
	for _, e := range ix.c.Stream {
		if e.Seq <= prev {
			r.flag("out_of_order", func() (string, []int) {
				return fmt.Sprintf("the read-back has sequence %d after %d", e.Seq, prev), nil
			})
		}
		prev = e.Seq
		bySeq[e.Seq] = e.Value
	}
	for n := range ix.c.Ops {
		op := &ix.c.Ops[n]
		if !(op.Type == OpPublish || op.Type == OpDeliver) || op.Outcome != history.OK || op.M.Seq == 0 {
			continue
		}
		ix.claim(r, bySeq, op, n, state.M.LastSeq)
	}
	if ix.o.Retention == Limits && ix.c.StreamComplete {
		ix.limitsRules(r, state)
	}
	if ix.o.Retention == Interest && ix.allDrained() {
		for _, e := range ix.c.Stream {
			ix.retained(r, e)
		}
	}
	r.Counts["stream_entries"] = len(ix.c.Stream)
	r.Counts["last_sequence"] = int(state.M.LastSeq)
	n := 0
	for _, k := range []string{"out_of_order", "sequence_conflict", "beyond_last_sequence", "missing_from_stream", "first_sequence", "retained"} {
		n += r.Counts[k]
	}
	r.summarize(fmt.Sprintf("the stream disagrees with what was acknowledged and delivered in %s (%d missing, %d sequence conflicts, %d beyond its last sequence %d)",
		plural(n, "place"), r.Counts["missing_from_stream"], r.Counts["sequence_conflict"], r.Counts["beyond_last_sequence"], state.M.LastSeq),
		fmt.Sprintf("the %d messages read back agree with every PubAck and delivery (last sequence %d)", len(ix.c.Stream), state.M.LastSeq))
}

// claim checks one op's (sequence, value) against what is known.
func (ix *index) claim(r *result, bySeq map[uint64]string, op *Op, n int, last uint64) {
	if op.M.Seq > last {
		r.flag("beyond_last_sequence", func() (string, []int) {
			return fmt.Sprintf("%s %s at sequence %d, above the stream's last sequence %d after the run", op.Type, op.M.Value, op.M.Seq, last), []int{n}
		})
	}
	had, ok := bySeq[op.M.Seq]
	switch {
	case !ok:
		bySeq[op.M.Seq] = op.M.Value
	case had != op.M.Value:
		r.flag("sequence_conflict", func() (string, []int) {
			return fmt.Sprintf("sequence %d holds %s, but a %s said %s", op.M.Seq, had, op.Type, op.M.Value), []int{n}
		})
	}
}

// limitsRules: a limits stream with no limits set keeps everything.
func (ix *index) limitsRules(r *result, state *Op) {
	if state.M.Msgs > 0 && state.M.FirstSeq != 1 {
		r.flag("first_sequence", func() (string, []int) {
			return fmt.Sprintf("the limits stream's first sequence is %d, not 1: messages were removed", state.M.FirstSeq), []int{ix.streamOp}
		})
	}
	for v := range ix.vals {
		rec := &ix.vals[v]
		if rec.inStream || !rec.published || (rec.outcome != history.OK && rec.delivered == 0) {
			continue
		}
		r.flag("missing_from_stream", func() (string, []int) {
			return fmt.Sprintf("%s was acknowledged or delivered (sequence %d) but the limits stream no longer holds it", rec.value, rec.minSeq()),
				[]int{int(rec.okOp), int(rec.firstOp)}
		})
	}
}

// retained judges a message left in an interest stream after every drain.
func (ix *index) retained(r *result, e history.Entry) {
	for c := range ix.c.Consumers {
		for _, d := range ix.delsOf(int32(c), e.Seq) {
			if ix.o.MaxDeliver > 0 && d.count >= uint64(ix.o.MaxDeliver) {
				r.Counts["retained_at_max_deliver"]++
				return
			}
		}
	}
	describe := func() (string, []int) {
		return fmt.Sprintf("%s (sequence %d) is still in the interest stream although every consumer's drain found nothing pending", e.Value, e.Seq), nil
	}
	if ix.o.MaxDeliver > 0 {
		r.unsure("retained_or_exhausted", "with a limited MaxDeliver a message may use up its deliveries unseen", describe)
		return
	}
	r.flag("retained", describe)
}
