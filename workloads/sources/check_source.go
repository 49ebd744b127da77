package sources

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// CheckSource is source-exactly-once's name.
const CheckSource = "source-exactly-once"

// checkSource judges the sourced stream against the origins, after the
// copies settled:
//   - missing: a message an origin holds that the sourced stream lacks.
//     A repeated Nats-Msg-Id is the exception: the sourced stream keeps
//     the origins' ids and drops one it stored within its duplicate window
//     (nats-server stream.go processInboundSourceMsg, checkMsgId), so a
//     message is counted dropped_as_duplicate, not missing, when another
//     origin message with its id is in the sourced stream, stored there less than the
//     window before the message itself was stored in its origin (the copy
//     arrives after that; the containers share one clock).
//   - duplicate: one origin message (by the Nats-Stream-Source header's
//     origin and sequence; by body for a copy without it) twice in the
//     sourced stream. One body at two origin sequences (a retry stored
//     again after a short duplicate window) is two messages.
//   - out_of_order: two messages of one origin in the sourced stream in
//     the other order than in their origin.
//   - origin_lost: an acknowledged publish a limits origin does not hold
//     (it removes nothing in a cell); a work-queue origin's removals are
//     workqueue-origin's.
//
// Unknown when a read-back is incomplete. It returns the values it
// explained as dropped duplicates, which the consumers' checks must not
// count as lost.
func checkSource(c *Cell, maxEx int) (checker.Result, map[string]bool) {
	b := checker.NewBuilder(CheckSource, maxEx)
	dropped := map[string]bool{}
	names := append(c.Options.OriginNames(), c.Options.Sourced())
	for _, name := range names {
		if gap := c.readGap(name); gap != "" {
			b.Unsure("unread", gap, nil)
			b.Summarize("", "the sourced stream could not be compared with its origins")
			return b.Result, dropped
		}
	}
	sourced := c.Stream(c.Options.Sourced())
	// A copy names its origin message by its Nats-Stream-Source header;
	// one without it is matched by body.
	copies := map[string][]Message{}
	byID := map[string][]Message{} // every copy of each Nats-Msg-Id
	for _, m := range sourced.Messages {
		copies[copyKey(m.Source, m.SourceSeq, m.Value)] = append(copies[copyKey(m.Source, m.SourceSeq, m.Value)], m)
		if m.ID != "" {
			byID[m.ID] = append(byID[m.ID], m)
		}
	}
	upTo := copiedUpTo(c)
	window := c.Options.Window().D().Nanoseconds()
	held := 0
	for _, name := range c.Options.OriginNames() {
		for _, om := range c.Stream(name).Messages {
			held++
			if len(copies[copyKey(name, om.Seq, om.Value)])+len(copies[copyKey("", 0, om.Value)]) > 0 {
				b.Counts["copied"]++
				continue
			}
			if n, ok := namesake(byID[om.ID], name, om.Seq); ok && om.Time < n.Time+window {
				b.Counts["dropped_as_duplicate"]++
				dropped[om.Value] = true
				continue
			}
			if last, ok := upTo[name+" -> "+sourced.Name]; ok && om.Seq > last {
				b.Unsure("not_copied", fmt.Sprintf("%s had copied %s only up to sequence %d at the last sample, so what it lacks above is a stall (source-stall), not a loss",
					sourced.Name, name, last), example(fmt.Sprintf("%s holds %s at sequence %d, above what %s had copied", name, om.Value, om.Seq, sourced.Name), om))
				continue
			}
			b.Flag("missing", example(fmt.Sprintf("%s holds %s at sequence %d but %s never received it", name, om.Value, om.Seq, sourced.Name), om))
		}
	}
	// Duplicates and order are the sourced stream's own: judged on every
	// copy, whether or not its origin still holds the message (a
	// work-queue origin does not).
	inOrder := slices.Clone(sourced.Messages)
	slices.SortStableFunc(inOrder, func(a, b Message) int { return cmp.Compare(a.Seq, b.Seq) })
	last := map[string]Message{}
	for _, m := range inOrder {
		cs := copies[copyKey(m.Source, m.SourceSeq, m.Value)]
		if len(cs) > 1 && m.Seq == slices.MaxFunc(cs[:2], func(a, b Message) int { return cmp.Compare(a.Seq, b.Seq) }).Seq {
			b.Flag("duplicate", example(fmt.Sprintf("%s holds %s (%s sequence %d) %d times", sourced.Name, m.Value, m.Source, m.SourceSeq, len(cs)), cs...))
		}
		if m.SourceSeq == 0 {
			continue
		}
		if prev, ok := last[m.Source]; ok && m.SourceSeq < prev.SourceSeq {
			b.Flag("out_of_order", example(fmt.Sprintf("%s holds %s (%s sequence %d) at %d, after %s (%s sequence %d) at %d",
				sourced.Name, m.Value, m.Source, m.SourceSeq, m.Seq, prev.Value, prev.Source, prev.SourceSeq, prev.Seq), prev, m))
			continue
		}
		last[m.Source] = m
	}
	if c.Options.Retention == Limits {
		originLost(c, b)
	}
	b.Summarize(fmt.Sprintf("%s: %d of the origins' %d messages missing; of its %d copies %d duplicated, %d out of order; %d acknowledged messages gone from a limits origin",
		sourced.Name, b.Counts["missing"], held, len(sourced.Messages), b.Counts["duplicate"], b.Counts["out_of_order"], b.Counts["origin_lost"]),
		fmt.Sprintf("%s holds each of the %d messages its origins hold, and each of its %d copies once, in its origin's order (%d dropped as duplicate ids within the window)",
			sourced.Name, held, len(sourced.Messages), b.Counts["dropped_as_duplicate"]))
	return b.Result, dropped
}

// namesake is the copy whose id a missing message repeats: of the copies
// of that id from the same origin, the one of the highest origin sequence
// below the missing message's. The sourced stream could have dropped the
// message against it, and against no other.
func namesake(copies []Message, origin string, seq uint64) (Message, bool) {
	var best Message
	found := false
	for _, m := range copies {
		if m.Source == origin && m.SourceSeq > 0 && m.SourceSeq < seq && (!found || m.SourceSeq > best.SourceSeq) {
			best, found = m, true
		}
	}
	return best, found
}

// copiedUpTo is, per copy ("origin -> copy"), the origin sequence the
// last readable sample found it holding; a copy no sample read is absent.
func copiedUpTo(c *Cell) map[string]uint64 {
	out := map[string]uint64{}
	for _, s := range c.Ops.Copies {
		heads := map[string]bool{}
		for _, h := range s.Origins {
			heads[h.Name] = h.Error == ""
		}
		for _, l := range s.Links {
			if l.Error == "" && heads[l.From] {
				out[l.From+" -> "+l.To] = l.Copied
			}
		}
	}
	return out
}

// copyKey names the origin message a copy came from: its origin and
// origin sequence, or, without them, its body.
func copyKey(origin string, seq uint64, value string) string {
	if origin == "" || seq == 0 {
		return "body " + value
	}
	return fmt.Sprintf("%s %d", origin, seq)
}

// originLost flags acknowledged publishes a limits origin does not hold.
func originLost(c *Cell, b *checker.Builder) {
	held := map[string]bool{}
	for _, name := range c.Options.OriginNames() {
		for _, m := range c.Stream(name).Messages {
			held[m.Value] = true
		}
	}
	byValue, order := published(c.Ops)
	for _, v := range order {
		s := byValue[v]
		if s.acked && !held[v] {
			b.Flag("origin_lost", func() checker.Anomaly {
				how := fmt.Sprintf("acknowledged at %s sequence %d", s.origin, s.seq)
				if s.seq == 0 {
					// 2.10 answers a retry whose first copy is still being
					// proposed so; later releases refuse it with 10158.
					how = "acknowledged by a retry's PubAck as a duplicate naming no sequence"
				}
				return checker.Anomaly{Description: fmt.Sprintf("%s was %s, but %s does not hold it", v, how, s.origin),
					Ops: []checker.OpRef{{Index: s.op, Op: c.Ops.All[s.op]}}}
			})
		}
	}
}
