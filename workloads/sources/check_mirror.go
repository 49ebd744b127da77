package sources

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// CheckMirror is mirror-copy's name.
const CheckMirror = "mirror-copy"

// checkMirror: the mirror holds exactly the first origin's messages at the
// origin's sequences, with the same body and Nats-Msg-Id. A mirror stores
// each message at its origin sequence (nats-server stream.go
// processInboundMirrorMsg: expected last sequence sseq-1) and skips the
// sequences the origin no longer holds (skipMsgs), so after the copies
// settled:
//   - missing: an origin message the mirror lacks at its sequence;
//   - different: the mirror's message at that sequence has another body or id;
//   - extra: a mirror message at a sequence the origin does not hold
//     (an origin with limits retention removes nothing in a cell).
//
// Unknown when either stream's read-back is incomplete.
func checkMirror(c *Cell, maxEx int) checker.Result {
	b := checker.NewBuilder(CheckMirror, maxEx)
	origin, mirror := c.Options.Origin(1), c.Options.Mirror()
	for _, name := range []string{origin, mirror} {
		if gap := c.readGap(name); gap != "" {
			b.Unsure("unread", gap, nil)
			b.Summarize("", "the mirror could not be compared with its origin")
			return b.Result
		}
	}
	o, m := c.Stream(origin), c.Stream(mirror)
	bySeq := make(map[uint64]Message, len(m.Messages))
	for _, msg := range m.Messages {
		bySeq[msg.Seq] = msg
	}
	held := make(map[uint64]bool, len(o.Messages))
	last, sampled := copiedUpTo(c)[origin+" -> "+mirror]
	for _, om := range o.Messages {
		held[om.Seq] = true
		mm, ok := bySeq[om.Seq]
		switch {
		case !ok && sampled && om.Seq > last:
			b.Unsure("not_copied", fmt.Sprintf("%s had copied only up to sequence %d at the last sample, so what it lacks above is a stall (source-stall), not a loss", mirror, last),
				example(fmt.Sprintf("%s holds %s at sequence %d, above what %s had copied", origin, om.Value, om.Seq, mirror), om))
		case !ok:
			b.Flag("missing", example(fmt.Sprintf("%s holds %s at sequence %d; %s has nothing there", origin, om.Value, om.Seq, mirror), om))
		case mm.Value != om.Value || mm.ID != om.ID:
			b.Flag("different", example(fmt.Sprintf("at sequence %d %s holds %s (id %s) but %s holds %s (id %s)",
				om.Seq, origin, om.Value, om.ID, mirror, mm.Value, mm.ID), om, mm))
		default:
			b.Counts["copied"]++
		}
	}
	for _, mm := range m.Messages {
		if !held[mm.Seq] {
			b.Flag("extra", example(fmt.Sprintf("%s holds %s at sequence %d, which %s does not hold", mirror, mm.Value, mm.Seq, origin), mm))
		}
	}
	b.Summarize(fmt.Sprintf("%s differs from %s: %d missing, %d different, %d extra of %d origin messages",
		mirror, origin, b.Counts["missing"], b.Counts["different"], b.Counts["extra"], len(o.Messages)),
		fmt.Sprintf("%s holds all %d of %s's messages at their sequences", mirror, len(o.Messages), origin))
	return b.Result
}

// example is an anomaly naming stored messages as stream entries.
func example(desc string, msgs ...Message) func() checker.Anomaly {
	return func() checker.Anomaly {
		a := checker.Anomaly{Description: desc}
		for _, m := range msgs {
			a.Entries = append(a.Entries, history.Entry{Seq: m.Seq, Key: m.Subject, Value: m.Value})
		}
		return a
	}
}
