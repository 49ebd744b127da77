package findings

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// seqRange is an inclusive range of stream sequences.
type seqRange struct{ from, to uint64 }

func (r seqRange) String() string {
	if r.from == r.to {
		return thousands(int(r.from))
	}
	return thousands(int(r.from)) + "–" + thousands(int(r.to))
}

func (r seqRange) len() int { return int(r.to - r.from + 1) }

// missingRanges are the sequences below the stream's last that it does not
// hold: its head (from 1) and its gaps. It needs the whole stream.
func missingRanges(entries []history.Entry) []seqRange {
	var out []seqRange
	next := uint64(1)
	for _, e := range entries {
		if e.Seq > next {
			out = append(out, seqRange{next, e.Seq - 1})
		}
		next = e.Seq + 1
	}
	return out
}

// lostWrites is stream-integrity's lost_write: acknowledged writes whose
// values are not in the stream. When the stream starts past sequence 1
// the class is the lost stream head.
func (c *cell) lostWrites(r *checker.Result, cl Class) section {
	lost, acked := count(r, "lost_write"), r.Counts["acked_writes"]
	s := section{f: Finding{Class: cl.Slug, Title: cl.Title, Check: r.Name, Kind: cl.Kind, Count: lost}, promise: cl.Promise, allFaults: true}
	c.markStream() // the missing ranges need every entry
	missing := missingRanges(c.stream)
	head := len(c.stream) == 0 || c.stream[0].Seq > 1
	if head && c.head.Complete {
		s.f.Class = "lost-stream-head"
		if len(c.stream) == 0 {
			s.f.Title = "Acknowledged writes lost: after the faults the stream is empty"
		} else {
			s.f.Title = fmt.Sprintf("Acknowledged writes lost: after the faults the stream starts at sequence %s", thousands(int(c.stream[0].Seq)))
		}
	}
	s.f.Summary = fmt.Sprintf("%s of %s acknowledged writes are missing from the stream read back after recovery", thousands(lost), thousands(acked))
	if len(c.stream) > 0 {
		s.f.Summary += fmt.Sprintf(", which holds %s (seq %s to %s)", plural(c.head.Count, "entry", "entries"),
			thousands(int(c.stream[0].Seq)), thousands(int(c.stream[len(c.stream)-1].Seq)))
	}
	s.f.Summary += "."
	s.happened = append(s.happened, c.readBackNote(),
		fmt.Sprintf("The history holds %s acknowledged writes. The stream-integrity check looks each one's unique value up in the stream: %s are not there.",
			thousands(acked), thousands(lost)))
	if len(missing) > 0 {
		s.happened = append(s.happened, missingText(missing, lost))
	}
	rows := c.boundaryRows(missing)
	if len(rows.rows) > 0 {
		s.tables = append(s.tables, rows)
	}
	if bad := r.Counts["bad_read"]; bad > 0 {
		s.happened = append(s.happened, fmt.Sprintf("%s during the run had returned revisions and values that the stream no longer holds (the check's bad_read count).",
			plural(bad, "read", "reads")))
	}
	resets := c.matching(corePatterns)
	for _, nl := range resets {
		for _, l := range nl.Lines {
			s.logSpans = append(s.logSpans, l.Time)
		}
	}
	var said []string
	for _, nl := range resets {
		for _, l := range nl.Lines {
			if strings.Contains(l.Text, "resetting first sequence") || strings.Contains(l.Text, "Resetting stream") {
				said = append(said, fmt.Sprintf("%s logged `%s` at %s", nl.Node, logText(l.Text), c.rel(l.Time)))
			}
		}
	}
	if len(said) > 0 {
		s.happened = append(s.happened, "During the run "+strings.Join(said, "; ")+". The timeline below puts the servers' stream lines next to the faults.")
	}
	if c.res.Runtime == "docker" && (c.hasFault("kill") || c.hasFault("restart")) {
		s.notes = append(s.notes, killNote)
	}
	s.timeline = c.lostTimeline(missing)
	for _, o := range c.boundaryOps(missing) {
		s.logSpans = append(s.logSpans, c.wall(o.Complete))
	}
	s.byHand = c.byHand(s)
	return s
}

// killNote is why a kill alone loses nothing written: what a process
// wrote is in the host's page cache, which SIGKILL leaves alone (probed on
// Docker here: see cluster/lazyfs for the layer that does lose it).
const killNote = "**About the kills.** A kill is SIGKILL of the node's nats-server; its store is a directory on the host, " +
	"and the host keeps the page cache, so a kill by itself loses nothing the process had written (no power loss is simulated here)."

// hasFault reports whether any window injected the fault, alone or in a
// combination.
func (c *cell) hasFault(fault string) bool {
	for _, w := range c.res.Faults {
		for _, f := range strings.Split(w.Fault, "+") {
			if f == fault && w.Injected {
				return true
			}
		}
	}
	return false
}

func missingText(missing []seqRange, lost int) string {
	var parts []string
	total := 0
	for i, m := range missing {
		total += m.len()
		if i < 5 {
			what := ""
			if m.from == 1 {
				what = ", the head of the stream"
			}
			parts = append(parts, fmt.Sprintf("%s (%s%s)", m, plural(m.len(), "sequence", "sequences"), what))
		}
	}
	if len(missing) > 5 {
		parts = append(parts, fmt.Sprintf("and %d more ranges", len(missing)-5))
	}
	s := "The sequences below the last that the stream does not hold: " + strings.Join(parts, ", ") + fmt.Sprintf("; %s in all", thousands(total))
	if total == lost {
		s += ", as many as the lost writes"
	}
	return s + "."
}

// boundaryOps are the acknowledged writes at the edges of the missing
// ranges (the first and last lost of each, the first kept after it).
func (c *cell) boundaryOps(missing []seqRange) []history.Op {
	var revs []uint64
	for i, m := range missing {
		if i >= 5 {
			break
		}
		revs = append(revs, m.from, m.to, m.to+1)
	}
	seen := map[uint64]bool{}
	var out []history.Op
	for _, rev := range revs {
		if seen[rev] {
			continue
		}
		seen[rev] = true
		if o := c.ackedAt("", rev); o != nil {
			out = append(out, *o)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Rev < out[b].Rev })
	return out
}

func (c *cell) boundaryRows(missing []seqRange) table {
	held := map[uint64]bool{}
	for _, e := range c.stream {
		held[e.Seq] = true
	}
	t := table{title: "The writes at the edges of what is missing", header: []string{"revision", "call", "client, node", "acknowledged at", "in the stream now"},
		note: "Each row is a write the server acknowledged with that revision (the stream sequence)."}
	for _, o := range c.boundaryOps(missing) {
		in := "no"
		if held[o.Rev] {
			in = "yes"
		}
		t.rows = append(t.rows, []string{thousands(int(o.Rev)), "`" + call(o) + "`", fmt.Sprintf("client %d via %s", o.Client, nodeOf(o.Node)), c.when(o.Complete), in})
	}
	return t
}

// lostTimeline merges the fault windows, the stream's log lines and the
// edges of what was lost into one timeline.
func (c *cell) lostTimeline(missing []seqRange) []event {
	evs := c.logEvents(timelinePatterns)
	if !c.res.HistoryStart.IsZero() {
		for _, w := range c.res.Faults {
			who := strings.Join(w.Targets, ", ")
			evs = append(evs, event{at: c.wall(int64(w.Start)), node: who, what: fmt.Sprintf("fault %s applied", w.Fault)},
				event{at: c.wall(int64(w.End)), node: who, what: fmt.Sprintf("fault %s healed", w.Fault)})
		}
		held := map[uint64]bool{}
		for _, e := range c.stream {
			held[e.Seq] = true
		}
		for _, o := range c.boundaryOps(missing) {
			what := "lost"
			if held[o.Rev] {
				what = "still in the stream"
			}
			evs = append(evs, event{at: c.wall(o.Complete), node: nodeOf(o.Node),
				what: fmt.Sprintf("client %d's write of revision %s acknowledged (%s)", o.Client, thousands(int(o.Rev)), what)})
		}
	}
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].at.Before(evs[b].at) })
	return evs
}
