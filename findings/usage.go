package findings

import "github.com/jetstream-chaos/jetstream-chaos/history"

// usage records which stored ops, stream entries and log lines a finding
// read, so the testdata trimmer keeps exactly those. It is nil outside
// the trimmer, and marking then does nothing.
type usage struct {
	ops         map[string]bool // opID
	entries     map[uint64]bool // seq
	wholeStream bool
	lines       map[string]map[int]bool // node -> line number
}

func newUsage() *usage {
	return &usage{ops: map[string]bool{}, entries: map[uint64]bool{}, lines: map[string]map[int]bool{}}
}

func (c *cell) markOp(o *history.Op) *history.Op {
	if c.used != nil && o != nil {
		c.used.ops[opID(*o)] = true
	}
	return o
}

func (c *cell) markEntry(e *history.Entry) *history.Entry {
	if c.used != nil && e != nil {
		c.used.entries[e.Seq] = true
	}
	return e
}

func (c *cell) markStream() {
	if c.used != nil {
		c.used.wholeStream = true
	}
}

func (c *cell) markLines(node string, lines []logLine) {
	if c.used == nil {
		return
	}
	if c.used.lines[node] == nil {
		c.used.lines[node] = map[int]bool{}
	}
	for _, l := range lines {
		c.used.lines[node][l.No] = true
	}
}
