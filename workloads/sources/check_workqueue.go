package sources

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// CheckWorkQueue is workqueue-origin's name.
const CheckWorkQueue = "workqueue-origin"

// checkWorkQueue judges a cell whose origins have work-queue retention:
//   - removed_undelivered: an acknowledged message its origin no longer
//     holds that the sourced stream never received. A work-queue origin
//     removes a message once the sourcing consumer took it (nats-server
//     consumer.go: an AckNone consumer acks on delivery; from 2.14 a
//     durable sourcing consumer acks by flow control), so what it removed
//     must have reached the sourcing side (issue 4109: lost while the link
//     was down).
//     A repeated id whose namesake the sourced stream holds is unknown
//     (dropped_or_lost): the sourced stream may have dropped it within its
//     own window, and with the message gone from the origin nothing tells
//     when it was stored.
//   - replicas_disagree: the origin's replicas report different message
//     counts or first sequences after the copies settled (issue 5450: on
//     2.10 only the leader removed).
//
// Unknown when the sourced stream's or an origin's read-back is
// incomplete, or a replica could not be read.
func checkWorkQueue(c *Cell, maxEx int) checker.Result {
	b := checker.NewBuilder(CheckWorkQueue, maxEx)
	gaps := []string{}
	for _, name := range append(c.Options.OriginNames(), c.Options.Sourced()) {
		if gap := c.readGap(name); gap != "" {
			gaps = append(gaps, gap)
		}
	}
	if len(gaps) == 0 {
		removedUndelivered(c, b)
	} else {
		b.Unsure("unread", gaps[0], nil)
	}
	if c.OriginStates == nil {
		b.Unsure("replicas_unread", "the origins' replicas were not read (no "+OriginReplicasFile+")", nil)
	}
	for _, d := range disagreements(c.OriginStates) {
		if d.unread {
			b.Unsure("replicas_unread", d.text, nil)
			continue
		}
		b.Flag("replicas_disagree", func() checker.Anomaly { return checker.Anomaly{Key: d.origin, Description: d.text} })
	}
	b.Summarize(fmt.Sprintf("%d messages removed from a work-queue origin but never sourced; %d origins whose replicas disagree",
		b.Counts["removed_undelivered"], b.Counts["replicas_disagree"]),
		fmt.Sprintf("every one of %d messages removed from the origins reached %s, and each origin's replicas agree", b.Counts["removed"], c.Options.Sourced()))
	return b.Result
}

func removedUndelivered(c *Cell, b *checker.Builder) {
	held, got := map[string]bool{}, map[string]bool{}
	for _, name := range c.Options.OriginNames() {
		for _, m := range c.Stream(name).Messages {
			held[m.Value] = true
		}
	}
	byID := map[string][]Message{}
	for _, m := range c.Stream(c.Options.Sourced()).Messages {
		got[m.Value] = true
		byID[m.ID] = append(byID[m.ID], m)
	}
	byValue, order := published(c.Ops)
	for _, v := range order {
		s := byValue[v]
		if !s.acked || held[v] {
			continue
		}
		b.Counts["removed"]++
		if _, ok := namesake(byID[s.id], s.origin, s.seq); !got[v] && ok {
			// The origin no longer holds it to say when it was stored, so
			// a drop by the sourced stream's window cannot be told apart.
			b.Unsure("dropped_or_lost", fmt.Sprintf("%s repeats the id of an earlier message the sourced stream holds, and the origin removed it: the sourced stream may have dropped it as a duplicate within its window", v), nil)
			continue
		}
		if !got[v] {
			b.Flag("removed_undelivered", func() checker.Anomaly {
				return checker.Anomaly{Description: fmt.Sprintf("%s was acknowledged at %s sequence %d; %s removed it but %s never received it",
					v, s.origin, s.seq, s.origin, c.Options.Sourced()), Ops: []checker.OpRef{{Index: s.op, Op: c.Ops.All[s.op]}}}
			})
		}
	}
}

// disagreement is one origin whose replicas differ, or could not be read.
type disagreement struct {
	origin, text string
	unread       bool
}

// disagreements compares each origin's replicas: their message counts
// and first and last sequences must be equal.
func disagreements(states []OriginState) []disagreement {
	byOrigin := map[string][]OriginState{}
	var order []string
	for _, s := range states {
		if _, ok := byOrigin[s.Origin]; !ok {
			order = append(order, s.Origin)
		}
		byOrigin[s.Origin] = append(byOrigin[s.Origin], s)
	}
	var out []disagreement
	for _, o := range order {
		var parts []string
		first := ""
		differ := false
		for _, s := range byOrigin[o] {
			if s.Error != "" || s.State == nil {
				why := s.Error
				if why == "" {
					why = "holds no copy"
				}
				out = append(out, disagreement{origin: o, unread: true, text: fmt.Sprintf("%s's replica on %s: %s", o, s.Node, why)})
				continue
			}
			st := fmt.Sprintf("%d messages, sequences %d..%d", s.State.Msgs, s.State.FirstSeq, s.State.LastSeq)
			if first == "" {
				first = st
			}
			differ = differ || st != first
			parts = append(parts, s.Node+": "+st)
		}
		if differ {
			out = append(out, disagreement{origin: o, text: o + "'s replicas disagree: " + strings.Join(parts, "; ")})
		}
	}
	return out
}
