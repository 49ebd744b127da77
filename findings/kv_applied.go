package findings

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// appliedCase is one failed write whose value is in the stream.
type appliedCase struct {
	op    history.Op
	entry history.Entry
	prev  *history.Entry // the key's entry before it in the stream
	src   *history.Op    // the client's get that supplied the expected revision
	named *history.Op    // 10071: the write acknowledged with the sequence the error names
	next  *history.Op    // the client's next get of the key
}

// failedWriteApplied is stream-integrity's failed_write_applied: a write
// answered with a definite error whose (unique) value is in the stream.
func (c *cell) failedWriteApplied(r *checker.Result, cl Class) section {
	n := count(r, cl.Kind)
	var cases []appliedCase
	for _, a := range r.Anomalies {
		if a.Kind != cl.Kind || len(a.Ops) == 0 || len(a.Entries) == 0 {
			continue
		}
		ac := appliedCase{op: a.Ops[0].Op, entry: a.Entries[0]}
		ac.prev = c.entryBefore(ac.entry)
		ac.src = c.lastGetBefore(ac.op)
		if ac.op.ErrSeq != 0 {
			ac.named = c.ackedAt(ac.op.Key, ac.op.ErrSeq)
		}
		ac.next = c.nextGetAfter(ac.op)
		cases = append(cases, ac)
	}
	sort.SliceStable(cases, func(a, b int) bool { return cases[a].op.Invoke < cases[b].op.Invoke })
	calls := "writes"
	if len(cases) > 0 && allUpdates(cases) {
		calls = "`kv.Update` calls"
	}
	s := section{f: Finding{Class: cl.Slug, Title: cl.Title, Check: r.Name, Kind: cl.Kind, Count: n}, promise: cl.Promise}
	if len(cases) > 0 && allUpdates(cases) {
		s.f.Title = failedUpdateTitle
	}
	s.f.Summary = fmt.Sprintf("%s %s answered with an error (%s), and yet their values are in the stream.",
		thousands(n), calls, codeList(cases))
	s.happened = append(s.happened, fmt.Sprintf("%s %s got an error reply that says the write did not happen, and yet the value each one wrote is in the stream read back after the run. "+
		"Every value written in this test is unique (client id and a counter), so a value in the stream can only have been stored by that call.", thousands(n), calls))
	if len(cases) == 0 {
		s.happened = append(s.happened, "results.json keeps no example of them.")
		return s
	}
	var ops []history.Op
	for _, ac := range cases {
		ops = append(ops, ac.op)
	}
	span := opsSpan(ops)
	shown := ""
	if len(cases) < n {
		shown = fmt.Sprintf(" (the %d results.json keeps as examples)", len(cases))
	}
	s.happened = append(s.happened, fmt.Sprintf("They%s were called between %s and %s and answered within %s of each other, by clients connected to %s.",
		shown, c.when(span[0]), c.when(span[1]), msDur(span[1]-span[0]), strings.Join(nodesOf(ops), ", ")))
	if lt := c.leaderText(c.wall(span[1]).Add(logWindow)); lt != "" {
		s.happened = append(s.happened, lt)
	}
	ex := pickExample(cases)
	s.happened = append(s.happened, c.walkthrough(ex))
	s.ops = c.withContext(ops, ex)
	s.opsNote = fmt.Sprintf("The failed writes%s, with client %d's read before and after its own.", shown, ex.op.Client)
	s.tables = append(s.tables, c.whereStored(cases))
	s.opSpan = opsSpan(ops)
	s.logSpans = c.opMoments(ops)
	if c.nearFault(s.opSpan, "partition-leader") {
		s.notes = append(s.notes, deposedLeaderNote)
	}
	s.byHand = c.byHand(s)
	return s
}

const failedUpdateTitle = "kv.Update answered \"wrong last sequence\" although the write was applied"

// deposedLeaderNote is what the server's sources say about this path, as
// read by hand in nats-server's jetstream_cluster.go
// (checkMsgHeadersPreClusteredProposal) and jetstream_batching.go.
const deposedLeaderNote = "**What the nats-server sources say** (verified in the v2.14.5/v2.15.3 sources: jetstream_cluster.go, " +
	"and checkMsgHeadersPreClusteredProposal in jetstream_batching.go). Only the stream leader subscribes to the stream's subjects. " +
	"While a leader that was cut off has not yet stepped down, both it and the new leader receive a publish once the partition heals, " +
	"and both reply; the client keeps the first reply. The deposed leader checks `Nats-Expected-Last-Subject-Sequence` against its own " +
	"stale store and answers 10071 at once (10164 when a write to the subject is still in process on it, `expectedPerSubjectInProcess`), " +
	"while the new leader stores the message. The old leader steps down only when it sees a higher term or after about 10 s without quorum."

func allUpdates(cases []appliedCase) bool {
	for _, ac := range cases {
		if ac.op.Type != history.Update {
			return false
		}
	}
	return true
}

// codeList is "10071 `wrong last sequence: N` x 6, 10164 x 4" over the
// examples.
func codeList(cases []appliedCase) string {
	counts := map[string]int{}
	var order []string
	for _, ac := range cases {
		k := string(ac.op.Err)
		switch ac.op.ErrCode {
		case 10071:
			k = "10071 `wrong last sequence: N`"
		case 10164:
			k = "10164 `wrong last sequence`"
		case 0:
		default:
			k = fmt.Sprintf("%d `%s`", ac.op.ErrCode, errDescription(ac.op))
		}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	sort.Strings(order)
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%s: %d", k, counts[k]))
	}
	s := strings.Join(parts, ", ")
	if len(cases) > 0 {
		s = "of the examples, " + s
	}
	return s
}

// pickExample is the case that tells the most: a 10071 naming a sequence
// whose write is in the history, with the client's get before it.
func pickExample(cases []appliedCase) appliedCase {
	best, score := cases[0], -1
	for _, ac := range cases {
		sc := 0
		if ac.named != nil {
			sc += 4
		}
		if ac.src != nil {
			sc += 2
		}
		if ac.prev != nil && ac.prev.Seq == ac.op.ExpectedRev {
			sc++
		}
		if sc > score {
			best, score = ac, sc
		}
	}
	return best
}

// walkthrough tells one case from the read to the stream.
func (c *cell) walkthrough(ac appliedCase) string {
	o := ac.op
	var b strings.Builder
	fmt.Fprintf(&b, "For example, client %d (connected to %s)", o.Client, nodeOf(o.Node))
	if g := ac.src; g != nil {
		fmt.Fprintf(&b, " read %s at %s: `kv.Get(%q)` returned revision %d, value %q. It then", o.Key, c.when(g.Invoke), o.Key, g.Rev, g.Value)
	}
	fmt.Fprintf(&b, " called `%s` at %s and at %s got `%s`. ", call(o), c.when(o.Invoke), c.when(o.Complete), reply(o))
	fmt.Fprintf(&b, "The stream holds %q at seq %d", o.Value, ac.entry.Seq)
	if p := ac.prev; p != nil {
		fmt.Fprintf(&b, ", and the entry of %s before it is seq %d", o.Key, p.Seq)
		if p.Seq == o.ExpectedRev {
			b.WriteString(", the very revision the update expected: the condition held, the write was applied, and the client was told it was not")
		}
	}
	b.WriteString(".")
	if w := ac.named; w != nil {
		fmt.Fprintf(&b, " The sequence the error names, %d, is the revision of %s that client %d's write was acknowledged with at %s, %s before this update was called.",
			o.ErrSeq, o.Key, w.Client, c.when(w.Complete), secs(durNs(o.Invoke-w.Complete)))
	}
	if g := ac.next; g != nil && g.Value == o.Value {
		fmt.Fprintf(&b, " The client's next read of %s, at %s, returned revision %d, %q: the value it had just been told was not written.", o.Key, c.when(g.Invoke), g.Rev, g.Value)
	}
	return b.String()
}

// withContext adds the example's reads before and after to the ops.
func (c *cell) withContext(ops []history.Op, ac appliedCase) []history.Op {
	out := append([]history.Op(nil), ops...)
	for _, g := range []*history.Op{ac.src, ac.next} {
		if g != nil {
			out = append(out, *g)
		}
	}
	sortOps(out)
	return out
}

// whereStored tabulates each failed write's value in the stream.
func (c *cell) whereStored(cases []appliedCase) table {
	t := table{title: "Where the values are", header: []string{"value", "written by", "reply", "stored at seq", "the key's entry before it", "expected revision"},
		note: c.readBackNote()}
	// A bucket that keeps n revisions per key reads back only those: an
	// entry missing before the value may just not be kept.
	none := "none"
	if kv, ok := c.kv(); ok && kv.History != nil && *kv.History > 0 {
		none = fmt.Sprintf("not in the read-back (it keeps %s per key)", plural(*kv.History, "revision", "revisions"))
	}
	for _, ac := range cases {
		prev, held := none, "-"
		if ac.prev != nil {
			prev = fmt.Sprintf("seq %d", ac.prev.Seq)
			held = fmt.Sprintf("%d (%s)", ac.op.ExpectedRev, map[bool]string{true: "matches", false: "does not match"}[ac.prev.Seq == ac.op.ExpectedRev])
		}
		t.rows = append(t.rows, []string{fmt.Sprintf("%q", ac.op.Value), fmt.Sprintf("client %d via %s", ac.op.Client, nodeOf(ac.op.Node)),
			reply(ac.op), fmt.Sprint(ac.entry.Seq), prev, held})
	}
	return t
}

func nodesOf(ops []history.Op) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range ops {
		if n := nodeOf(o.Node); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func msDur(ns int64) string { return fmt.Sprintf("%.1f ms", float64(ns)/1e6) }
