package findings

import "github.com/jetstream-chaos/jetstream-chaos/history"

// kv-update's lookups in the stored history and stream, by key and
// revision, for its section builders (kv_*.go). Like every lookup (see
// lookup.go), each picks one op or entry by what it is, never by a count.

// entryBefore is the stream entry of e's key just before e.
func (c *cell) entryBefore(e history.Entry) *history.Entry {
	var best *history.Entry
	for i := range c.stream {
		x := &c.stream[i]
		if x.Key == e.Key && x.Seq < e.Seq && (best == nil || x.Seq > best.Seq) {
			best = x
		}
	}
	return c.markEntry(best)
}

// lastGetBefore is the client's latest ok get of the op's key completed
// before the op was invoked.
func (c *cell) lastGetBefore(o history.Op) *history.Op {
	var best *history.Op
	for i := range c.ops {
		g := &c.ops[i]
		if g.Client == o.Client && g.Type == history.Get && g.Key == o.Key && g.Outcome == history.OK &&
			g.Complete <= o.Invoke && (best == nil || g.Invoke > best.Invoke) {
			best = g
		}
	}
	return c.markOp(best)
}

// nextGetAfter is the client's first ok get of the op's key invoked after
// the op completed.
func (c *cell) nextGetAfter(o history.Op) *history.Op {
	var best *history.Op
	for i := range c.ops {
		g := &c.ops[i]
		if g.Client == o.Client && g.Type == history.Get && g.Key == o.Key && g.Outcome == history.OK &&
			g.Invoke >= o.Complete && (best == nil || g.Invoke < best.Invoke) {
			best = g
		}
	}
	return c.markOp(best)
}

// ackedAt is the write acknowledged with revision rev (of key, unless key
// is ""). Revisions are stream sequences, so there is at most one.
func (c *cell) ackedAt(key string, rev uint64) *history.Op {
	for i := range c.ops {
		o := &c.ops[i]
		if o.IsWrite() && o.Outcome == history.OK && o.Rev == rev && (key == "" || o.Key == key) && o.Client != history.NemesisClient {
			return c.markOp(o)
		}
	}
	return nil
}
