package findings

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// spurious is wrong-last-seq's spurious class with code 10071: an update
// rejected with "wrong last sequence: N" although the revision it expected
// was the key's latest and nothing else wrote the key.
func (c *cell) spurious(r *checker.Result, cl Class) section {
	n := count(r, cl.Kind)
	s := section{f: Finding{Class: cl.Slug, Title: cl.Title, Check: r.Name, Kind: cl.Kind, Count: n}, promise: cl.Promise}
	s.f.Summary = fmt.Sprintf("%s rejected with 10071 `wrong last sequence: N` although the revision %s was the key's latest and no other client wrote the key.",
		plural(n, "`kv.Update` call was", "`kv.Update` calls were"), map[bool]string{true: "it expected", false: "they expected"}[n == 1])
	var ups []history.Op
	for _, a := range r.Anomalies {
		if a.Kind == cl.Kind && countsAsAnomaly(r, a) {
			ups = append(ups, a.Ops[len(a.Ops)-1].Op)
		}
	}
	s.happened = append(s.happened, fmt.Sprintf("The wrong-last-seq check explains each rejected update by a stale read before it, by a concurrent write to the key, or by neither (spurious). "+
		"%s of the %s rejected with 10071 are spurious: the client's last read of the key had returned the revision the update expected, that revision was still the key's latest, and nothing else wrote the key. "+
		"(Spurious 10164 rejections, %s here, are not counted: the leader refuses an expected-sequence write while another write to the subject is in flight, by design.)",
		thousands(n), plural(r.Counts["rejections_10071"], "update", "updates"), thousands(r.Counts["spurious_10164"])))
	if len(ups) == 0 && n == r.Counts["rejections_10071"] {
		ups = c.rejections10071()
		s.happened = append(s.happened, "results.json keeps no 10071 example (examples are capped per kind), so the updates below are the history's 10071 rejections, every one of which was judged spurious.")
	}
	if len(ups) == 0 {
		return s
	}
	sortOps(ups)
	var lines []string
	applied := 0
	ops := append([]history.Op(nil), ups...)
	for _, u := range ups {
		l := fmt.Sprintf("- client %d (via %s) called `%s` at %s", u.Client, nodeOf(u.Node), call(u), c.when(u.Invoke))
		if g := c.lastGetBefore(u); g != nil && g.Rev == u.ExpectedRev {
			l += fmt.Sprintf(", after its read of %s at %s returned that revision", u.Key, c.when(g.Invoke))
			ops = append(ops, *g)
		}
		l += fmt.Sprintf("; the reply named last sequence %d", u.ErrSeq)
		if e := c.entryOf(u.Value); e != nil {
			applied++
			l += fmt.Sprintf("; its value is in the stream, at seq %d", e.Seq)
		} else if c.head.Complete {
			l += "; its value is not in the stream"
		}
		lines = append(lines, l+".")
	}
	s.happened = append(s.happened, strings.Join(lines, "\n"))
	if applied > 0 {
		p := fmt.Sprintf("%d of these %d were applied anyway.", applied, len(ups))
		if in := c.check("stream-integrity"); in != nil && in.Verdict == checker.Invalid && in.Counts["failed_write_applied"] > 0 {
			p = fmt.Sprintf("%d of these %d were applied anyway: see [%s](#failed-write-applied).", applied, len(ups), failedUpdateTitle)
		}
		s.happened = append(s.happened, p)
	}
	sortOps(ops)
	s.ops = dedupe(ops)
	s.opsNote = "The rejected updates and the reads that supplied the revisions they expected."
	s.opSpan = opsSpan(ups)
	s.logSpans = c.opMoments(ups)
	if c.nearFault(s.opSpan, "partition-leader") {
		s.notes = append(s.notes, deposedLeaderNote)
	}
	s.byHand = c.byHand(s)
	return s
}

// entryOf is the stream entry holding value (values are unique).
func (c *cell) entryOf(value string) *history.Entry {
	for i := range c.stream {
		if c.stream[i].Value == value {
			return c.markEntry(&c.stream[i])
		}
	}
	return nil
}

func dedupe(ops []history.Op) []history.Op {
	seen := map[string]bool{}
	var out []history.Op
	for _, o := range ops {
		if id := opID(o); !seen[id] {
			seen[id] = true
			out = append(out, o)
		}
	}
	return out
}

// rejections10071 are the history's updates answered 10071, at most 20.
func (c *cell) rejections10071() []history.Op {
	var out []history.Op
	for _, o := range c.clientOps() {
		if o.Type == history.Update && o.Outcome == history.Fail && o.ErrCode == 10071 && len(out) < 20 {
			out = append(out, *c.markOp(&o))
		}
	}
	return out
}
