package sources

import "github.com/jetstream-chaos/jetstream-chaos/history"

// sent is what the history says about one value published to an origin.
type sent struct {
	value, id, origin string
	repeat            bool
	// acked: an attempt was acknowledged as storing this value at seq
	// (op: that attempt). A repeat whose duplicate ack named its
	// namesake's sequence was not stored: deduped is set instead.
	acked   bool
	deduped bool
	seq     uint64
	op      int
	// maybe: no attempt was acknowledged but one may have been stored.
	maybe bool
}

// published indexes the publishes by value, in first-publish order.
func published(ops Ops) (map[string]*sent, []string) {
	byValue := map[string]*sent{}
	var order []string
	seqOf := map[string]uint64{} // an id's seq, from its own first value's ack
	for _, p := range ops.Publishes {
		if p.H.Outcome == history.OK && !p.Repeat && p.ID == p.Value {
			seqOf[p.ID] = p.Seq
		}
	}
	for _, p := range ops.Publishes {
		s := byValue[p.Value]
		if s == nil {
			s = &sent{value: p.Value, id: p.ID, origin: p.Origin, repeat: p.Repeat, op: -1}
			byValue[p.Value] = s
			order = append(order, p.Value)
		}
		switch {
		case p.H.Outcome == history.Info:
			s.maybe = true
		case p.H.Outcome != history.OK || s.acked:
		case p.Repeat && p.Duplicate && seqOf[p.ID] == 0:
			s.maybe = true // the namesake's sequence is unknown: cannot tell
		case p.Repeat && p.Duplicate && seqOf[p.ID] == p.Seq:
			s.deduped = true
		default:
			s.acked, s.seq, s.op = true, p.Seq, p.Op
		}
	}
	return byValue, order
}
