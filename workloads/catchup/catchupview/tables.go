package catchupview

import (
	"cmp"
	"fmt"
	"html"
	"html/template"
	"slices"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// maxEvents bounds the events listed in a cell; a crash loop makes many.
const maxEvents = 40

// cellTables renders a cell's own part of its section: its notes, its
// events and the server log lines of interest.
func cellTables(r *catchup.Result) template.HTML {
	var b strings.Builder
	for _, n := range r.Notes {
		fmt.Fprintf(&b, `<p class="note">%s</p>`, html.EscapeString(n))
	}
	if rows, more := eventRows(r); len(rows) > 0 {
		fmt.Fprintf(&b, `<h3>What happened to the nodes</h3><div class="scroll">%s</div>`, reports.ListTable("", []string{"at", "node", "what", "detail"}, rows))
		if more > 0 {
			fmt.Fprintf(&b, `<p class="note">%d more events not shown.</p>`, more)
		}
	}
	if rows := logRows(r); len(rows) > 0 {
		fmt.Fprintf(&b, `<h3>Server log lines of interest</h3><div class="scroll">%s</div>`, reports.ListTable("logs", []string{"node", "pattern", "lines", "first / last"}, rows))
	}
	return template.HTML(b.String()) // every value is escaped
}

// eventRows are the first maxEvents events, those nobody asked for in
// red; more counts the rest.
func eventRows(r *catchup.Result) (rows [][]reports.Td, more int) {
	for i, e := range r.Events {
		if i == maxEvents {
			return rows, len(r.Events) - i
		}
		what, detail, class := cmp.Or(eventNames[e.Kind], string(e.Kind)), e.Detail, ""
		if e.Kind == catchup.EvLimit && (detail == "" || detail == "none" || detail == "0B") {
			what, detail = "memory limit lifted", ""
		}
		if e.Unasked() {
			class = reports.ClassBad
		}
		rows = append(rows, []reports.Td{{Text: reports.FormatAt(e.TMs), Class: "num"}, {Text: e.Node}, {Text: what, Class: class}, {Text: detail, Class: "detail"}})
	}
	return rows, 0
}

// logRows are the server log lines of interest, node by node.
func logRows(r *catchup.Result) (rows [][]reports.Td) {
	lines := slices.Clone(r.LogLines)
	slices.SortStableFunc(lines, func(a, b catchup.LogMatch) int { return strings.Compare(a.Node, b.Node) })
	for _, l := range lines {
		rows = append(rows, []reports.Td{{Text: l.Node}, {Text: l.Pattern}, {Text: reports.FormatCount(l.Count), Class: "num"},
			{Text: strings.TrimSuffix(l.First+"\n"+l.Last, "\n"), Class: "detail", Code: true}})
	}
	return rows
}
