package catchupview

import (
	"bytes"
	"cmp"
	"html/template"
	"sort"

	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// cuView is a cell's own tables; the cells table has the nodes' peaks and deaths.
type cuView struct {
	Events     []cuEventRow
	MoreEvents int
	LogLines   []cuLogRow
	Notes      []string
}

type cuEventRow struct {
	At, Node, What, Detail, Class string
}

type cuLogRow struct {
	Node, Pattern, Count, First, Last string
}

// maxEvents bounds the events listed in a cell; a crash loop makes many.
const maxEvents = 40

// tablesTmpl draws a catch-up cell's own part of its section.
var tablesTmpl = template.Must(template.New("catchup-cell").Parse(`
  {{- range .Notes}}<p class="note">{{.}}</p>{{end}}
  {{- if .Events}}
  <h3>What happened to the nodes</h3>
  <div class="scroll"><table class="list">
    <thead><tr><th>at</th><th>node</th><th>what</th><th>detail</th></tr></thead>
    <tbody>{{range .Events}}<tr><td class="num">{{.At}}</td><td>{{.Node}}</td><td class="{{.Class}}">{{.What}}</td><td class="detail">{{.Detail}}</td></tr>{{end}}</tbody>
  </table></div>
  {{- if .MoreEvents}}<p class="note">{{.MoreEvents}} more events not shown.</p>{{end}}
  {{- end}}
  {{- if .LogLines}}
  <h3>Server log lines of interest</h3>
  <div class="scroll"><table class="list logs">
    <thead><tr><th>node</th><th>pattern</th><th>lines</th><th>first / last</th></tr></thead>
    <tbody>{{range .LogLines}}<tr><td>{{.Node}}</td><td>{{.Pattern}}</td><td class="num">{{.Count}}</td><td class="detail"><code>{{.First}}</code>{{if .Last}}<br><code>{{.Last}}</code>{{end}}</td></tr>{{end}}</tbody>
  </table></div>
  {{- end}}`))

// cellTables renders a cell's own tables: its events and log lines.
func cellTables(r *catchup.Result) template.HTML {
	cu := &cuView{Notes: r.Notes, LogLines: logRows(r)}
	cu.Events, cu.MoreEvents = eventRows(r)
	var b bytes.Buffer
	if err := tablesTmpl.Execute(&b, cu); err != nil {
		return template.HTML(template.HTMLEscapeString("catch-up tables: " + err.Error()))
	}
	return template.HTML(b.String())
}

// eventRows are the first maxEvents events; more counts the rest.
func eventRows(r *catchup.Result) (rows []cuEventRow, more int) {
	for i, e := range r.Events {
		if i == maxEvents {
			return rows, len(r.Events) - i
		}
		row := cuEventRow{At: reports.FormatAt(e.TMs), Node: e.Node, What: cmp.Or(eventNames[e.Kind], string(e.Kind)), Detail: e.Detail}
		if e.Kind == catchup.EvLimit && (e.Detail == "" || e.Detail == "none" || e.Detail == "0B") {
			row.What, row.Detail = "memory limit lifted", ""
		}
		if e.Unasked() {
			row.Class = reports.ClassBad
		}
		rows = append(rows, row)
	}
	return rows, 0
}

// logRows are the server log lines of interest, node by node.
func logRows(r *catchup.Result) []cuLogRow {
	lines := append([]catchup.LogMatch(nil), r.LogLines...)
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].Node < lines[j].Node })
	var rows []cuLogRow
	for _, l := range lines {
		rows = append(rows, cuLogRow{Node: l.Node, Pattern: l.Pattern, Count: reports.FormatCount(l.Count), First: l.First, Last: l.Last})
	}
	return rows
}
