package findings

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// render builds every section of the cell and the file that holds them.
func render(c *cell, e env) ([]Finding, []byte) {
	secs := sections(c)
	if len(secs) == 0 {
		return nil, nil
	}
	var b strings.Builder
	label := c.res.Label
	if label == "" {
		label = c.res.Name
	}
	fmt.Fprintf(&b, "# Findings: %s\n\n", label)
	fmt.Fprintf(&b, "Found by jetstream-chaos (`github.com/jetstream-chaos/jetstream-chaos`), a Jepsen-style test of JetStream, in cell `%s` of run `%s`. ",
		c.res.Name, filepath.Base(filepath.Dir(c.dir)))
	b.WriteString("Each section below is a complete report of one anomaly: paste it into a nats-server issue as it is.\n\n")
	var fs []Finding
	for _, s := range secs {
		fs = append(fs, s.f)
		line := fmt.Sprintf("- [%s](#%s): %s", s.f.Title, s.f.Class, s.f.Summary)
		if s.f.AfterPowerLoss {
			line += " (after a power loss: read the note before filing)"
		}
		b.WriteString(line + "\n")
	}
	for _, s := range secs {
		b.WriteString("\n---\n\n")
		c.writeSection(&b, s, e)
	}
	return fs, []byte(b.String())
}

func (c *cell) writeSection(b *strings.Builder, s section, e env) {
	fmt.Fprintf(b, "<a id=%q></a>\n\n## %s\n\n%s\n\n", s.f.Class, s.f.Title, s.f.Summary)
	if s.caveat != "" {
		b.WriteString("> " + s.caveat + "\n\n")
	}
	fmt.Fprintf(b, "### What the client was promised\n\n%s\n\n", s.promise)
	b.WriteString("### What happened\n\n")
	for _, p := range s.happened {
		b.WriteString(p + "\n\n")
	}
	if len(s.ops) > 0 {
		b.WriteString("### The operations\n\n")
		if s.opsNote != "" {
			b.WriteString(s.opsNote + "\n\n")
		}
		b.WriteString(c.timesNote() + "\n\n")
		writeTable(b, c.opTable(s.ops))
	}
	for _, t := range s.tables {
		fmt.Fprintf(b, "### %s\n\n", t.title)
		if t.note != "" {
			b.WriteString(t.note + "\n\n")
		}
		writeTable(b, t)
	}
	if len(s.timeline) > 0 {
		c.writeTimeline(b, s.timeline)
	}
	c.writeFaults(b, s)
	c.writeLogs(b, s)
	for _, n := range s.notes {
		b.WriteString(n + "\n\n")
	}
	c.writeEnvironment(b, e)
	c.writeReproduce(b, s)
}

func (c *cell) timesNote() string {
	if c.res.HistoryStart.IsZero() {
		return "Times are seconds since the start of the recorded history (its wall-clock time was not recorded)."
	}
	return fmt.Sprintf("Times are seconds since the start of the recorded history, %s UTC, with the wall-clock time (UTC) in brackets. The node is the server the client was connected to.",
		c.res.HistoryStart.UTC().Format("2006-01-02 15:04:05.000000"))
}

func writeTable(b *strings.Builder, t table) {
	b.WriteString("| " + strings.Join(t.header, " | ") + " |\n")
	b.WriteString(strings.Repeat("|---", len(t.header)) + "|\n")
	for _, r := range t.rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	b.WriteString("\n")
}

func (c *cell) writeTimeline(b *strings.Builder, evs []event) {
	b.WriteString("### Timeline\n\n")
	t := table{header: []string{"time", "node", "event"}}
	for _, e := range evs {
		t.rows = append(t.rows, []string{c.rel(e.at) + " (" + clock(e.at) + ")", e.node, e.what})
	}
	writeTable(b, t)
}

// writeFaults lists the fault windows near the ops (or all of them), with
// when each was injected, seen in effect, healed, and whether the toolkit
// saw its effect.
func (c *cell) writeFaults(b *strings.Builder, s section) {
	var rows [][]string
	for _, w := range c.res.Faults {
		if !s.allFaults && (int64(w.End)+int64(faultMargin) < s.opSpan[0] || int64(w.Start)-int64(faultMargin) > s.opSpan[1]) {
			continue
		}
		verified := "yes"
		switch {
		case !w.Injected:
			verified = "not injected"
		case !w.Verified:
			verified = "no"
		}
		row := []string{w.Fault, strings.Join(w.Targets, ", "), c.when(int64(w.Start)), c.when(int64(w.Start + w.Inject)),
			c.when(int64(w.End - w.Heal)), c.when(int64(w.End)), verified, w.Detail}
		if !s.allFaults {
			row = append(row, relation(s.opSpan, int64(w.Start), int64(w.Start+w.Inject), int64(w.End-w.Heal), int64(w.End)))
		}
		rows = append(rows, row)
	}
	b.WriteString("### Fault windows\n\n")
	if len(rows) == 0 {
		if len(c.res.Faults) == 0 {
			b.WriteString("No fault was injected in this cell.\n\n")
		} else {
			fmt.Fprintf(b, "None within %.0f s of the operations (the cell had %d).\n\n", faultMargin.Seconds(), len(c.res.Faults))
		}
		return
	}
	if s.allFaults {
		b.WriteString("Every fault window of the cell. ")
	} else {
		fmt.Fprintf(b, "The fault windows within %.0f s of the operations. ", faultMargin.Seconds())
	}
	b.WriteString("A window starts when the fault is applied; its effect is seen (verified by the toolkit: routes cut, process down, monitor port silent) after the inject time; the heal begins, and the window ends when the heal is seen.\n\n")
	t := table{header: []string{"fault", "targets", "applied", "effect seen", "heal began", "healed", "verified", "what the toolkit saw"}, rows: rows}
	if !s.allFaults {
		t.header = append(t.header, "the operations")
	}
	writeTable(b, t)
}

// relation says where the ops' span falls against one window.
func relation(ops [2]int64, start, effect, heal, end int64) string {
	switch {
	case ops[1] < start:
		return fmt.Sprintf("%s before it was applied", secs(time.Duration(start-ops[1])))
	case ops[0] > end:
		return fmt.Sprintf("%s after it healed", secs(time.Duration(ops[0]-end)))
	case ops[0] >= heal && ops[1] <= end:
		return fmt.Sprintf("during the heal, %s before it was seen healed", secs(time.Duration(end-ops[1])))
	case ops[0] >= effect && ops[1] < heal:
		return "while it was in effect"
	case ops[1] < effect:
		return "while it was being applied"
	}
	return "overlapping it"
}

// writeLogs shows each node's log lines within logWindow of the section's
// moments.
func (c *cell) writeLogs(b *strings.Builder, s section) {
	fmt.Fprintf(b, "### Server log lines within %.0f s of them\n\n", logWindow.Seconds())
	if len(c.logs) == 0 {
		b.WriteString("The cell kept no server logs.\n\n")
		return
	}
	var spans []span
	for _, t := range s.logSpans {
		spans = append(spans, span{t.Add(-logWindow), t.Add(logWindow)})
	}
	zone := "UTC: the containers have no time zone"
	if c.res.Runtime == "local" {
		zone = "the host's local time"
	}
	fmt.Fprintf(b, "Every node of the cluster (the stream has a replica on each). Log times are %s. At most %d lines a node: first the lines that are not about route connections, then the route connection lines nearest the operations; the full logs are in the cell's logs/ folder.\n\n", zone, maxLogLines)
	for _, nl := range linesNear(c.logs, c.nodes, spans) {
		c.markLines(nl.Node, nl.all)
		switch {
		case nl.Total == 0:
			fmt.Fprintf(b, "**%s**: no lines.\n\n", nl.Node)
			continue
		case nl.Total > len(nl.Lines):
			fmt.Fprintf(b, "**%s** (%d of %d lines):\n\n", nl.Node, len(nl.Lines), nl.Total)
		default:
			fmt.Fprintf(b, "**%s**:\n\n", nl.Node)
		}
		b.WriteString("```\n")
		for _, l := range nl.Lines {
			b.WriteString(l.Text + "\n")
		}
		b.WriteString("```\n\n")
	}
}
