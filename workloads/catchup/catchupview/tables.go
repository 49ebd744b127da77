package catchupview

import (
	"bytes"
	"fmt"
	"html/template"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// cuView is what a catch-up cell's section shows beyond the common parts.
type cuView struct {
	Outcome    string // the catch-up in one line, with the server's detail
	Nodes      []cuNodeRow
	Events     []cuEventRow
	MoreEvents int
	Phases     []cuPhaseRow
	LogLines   []cuLogRow
	Notes      []string
}

type cuNodeRow struct {
	Node, Role, RSS, Usage, Limit, Deaths, DeathsClass string
}

type cuEventRow struct {
	At, Node, What, Detail, Class string
}

type cuPhaseRow struct {
	Phase, From, Took, Acks, MBps, P50, P99, Max, Errors string
}

type cuLogRow struct {
	Node, Pattern, Count, First, Last string
}

// maxEvents bounds the events listed in a cell; a crash loop makes many.
const maxEvents = 40

// tablesTmpl draws a catch-up cell's own part of its section.
var tablesTmpl = template.Must(template.New("catchup-cell").Parse(`
  {{- if .Outcome}}<p><strong>Catch-up:</strong> {{.Outcome}}</p>{{end}}
  {{- range .Notes}}<p class="note">{{.}}</p>{{end}}
  {{- if .Nodes}}
  <h3>Memory per node, from the restart to the heal</h3>
  <div class="scroll"><table class="list">
    <thead><tr><th>node</th><th>role</th><th>peak RSS (x stream)</th><th>peak cgroup usage (x stream)</th><th>hard limit</th><th>deaths nobody asked for</th></tr></thead>
    <tbody>{{range .Nodes}}<tr><td>{{.Node}}</td><td>{{.Role}}</td><td class="num">{{.RSS}}</td><td class="num">{{.Usage}}</td><td class="num">{{.Limit}}</td><td class="{{.DeathsClass}}">{{.Deaths}}</td></tr>{{end}}</tbody>
  </table></div>
  {{- end}}
  {{- if .Events}}
  <h3>What happened to the nodes</h3>
  <div class="scroll"><table class="list">
    <thead><tr><th>at</th><th>node</th><th>what</th><th>detail</th></tr></thead>
    <tbody>{{range .Events}}<tr><td class="num">{{.At}}</td><td>{{.Node}}</td><td class="{{.Class}}">{{.What}}</td><td class="detail">{{.Detail}}</td></tr>{{end}}</tbody>
  </table></div>
  {{- if .MoreEvents}}<p class="note">{{.MoreEvents}} more events not shown.</p>{{end}}
  {{- end}}
  {{- if .Phases}}
  <h3>Phases and publishing</h3>
  <div class="scroll"><table class="list">
    <thead><tr><th>phase</th><th>from</th><th>took</th><th>acked publishes</th><th>MB/s</th><th>p50</th><th>p99</th><th>max</th><th>errors</th></tr></thead>
    <tbody>{{range .Phases}}<tr><td>{{.Phase}}</td><td class="num">{{.From}}</td><td class="num">{{.Took}}</td><td class="num">{{.Acks}}</td><td class="num">{{.MBps}}</td><td class="num">{{.P50}}</td><td class="num">{{.P99}}</td><td class="num">{{.Max}}</td><td>{{.Errors}}</td></tr>{{end}}</tbody>
  </table></div>
  {{- end}}
  {{- if .LogLines}}
  <h3>Server log lines of interest</h3>
  <div class="scroll"><table class="list logs">
    <thead><tr><th>node</th><th>pattern</th><th>lines</th><th>first / last</th></tr></thead>
    <tbody>{{range .LogLines}}<tr><td>{{.Node}}</td><td>{{.Pattern}}</td><td class="num">{{.Count}}</td><td class="detail"><code>{{.First}}</code>{{if .Last}}<br><code>{{.Last}}</code>{{end}}</td></tr>{{end}}</tbody>
  </table></div>
  {{- end}}`))

// cellTables is what a catch-up cell's section shows beyond the common
// parts: the catch-up in a line, every node's peaks and deaths, what
// happened to the nodes, the phases with publishing, the log lines of
// interest.
func cellTables(r *catchup.Result, s CatchupSummary) template.HTML {
	cu := &cuView{Notes: r.Notes, Outcome: outcomeLine(r), Nodes: nodeRows(r, s), Phases: phaseRows(r), LogLines: logRows(r)}
	cu.Events, cu.MoreEvents = eventRows(r)
	var b bytes.Buffer
	if err := tablesTmpl.Execute(&b, cu); err != nil {
		return template.HTML(template.HTMLEscapeString("catch-up tables: " + err.Error()))
	}
	return template.HTML(b.String())
}

// outcomeLine is the catch-up in one line, with the server's detail.
func outcomeLine(r *catchup.Result) string {
	o := r.CatchUp
	if o.RestartAtMs <= 0 {
		return ""
	}
	line := fmt.Sprintf("%s restarted at %s: %s", r.Target, reports.FormatAt(o.RestartAtMs), o.Outcome)
	if o.Outcome == catchup.OutcomeCurrent {
		line = fmt.Sprintf("%s restarted at %s and was current %s later", r.Target, reports.FormatAt(o.RestartAtMs), reports.FormatSecs(o.Seconds))
	} else if o.Outcome != "" {
		line = fmt.Sprintf("%s restarted at %s and was not current after %s (%s)", r.Target, reports.FormatAt(o.RestartAtMs), reports.FormatSecs(o.Seconds), outcomeWords(o.Outcome))
	}
	if o.Detail != "" {
		line += ": " + o.Detail
	}
	return line + "."
}

func nodeRows(r *catchup.Result, s CatchupSummary) []cuNodeRow {
	var rows []cuNodeRow
	for _, n := range r.Memory {
		row := cuNodeRow{Node: n.Node, Role: "served the catch-up", RSS: peakAt(n.PeakRSS, n.PeakRSSRatio, n.PeakRSSAt),
			Usage: peakAt(n.PeakUsage, n.PeakUsageRatio, n.PeakUsageAt), Limit: "none", Deaths: "none", DeathsClass: reports.ClassOK}
		switch {
		case n.Node == r.Target:
			row.Role = "target: killed, wiped, restarted"
		case n.Node == r.LeaderAtKill:
			row.Role = "stream leader at the kill"
		}
		if l, _ := n.Limit.Peak(); l > 0 {
			row.Limit = reports.FormatSize(l)
		}
		if d := s.deaths(n.Node); d.OOMKills > 0 || d.Deaths > 0 || d.Restarts > 0 {
			row.Deaths, row.DeathsClass = d.Describe(), reports.ClassBad
			row.Deaths = strings.TrimPrefix(row.Deaths, n.Node+": ")
		}
		rows = append(rows, row)
	}
	return rows
}

// eventRows are the first maxEvents events; more counts the rest.
func eventRows(r *catchup.Result) (rows []cuEventRow, more int) {
	for i, e := range r.Events {
		if i == maxEvents {
			return rows, len(r.Events) - i
		}
		row := cuEventRow{At: reports.FormatAt(e.TMs), Node: e.Node, What: eventWords(e.Kind), Detail: e.Detail}
		if e.Kind == catchup.EvLimit && (e.Detail == "" || e.Detail == "none" || e.Detail == "0B") {
			row.What, row.Detail = "memory limit lifted", ""
		}
		if !catchup.Asked(e) {
			row.Class = reports.ClassBad
		}
		rows = append(rows, row)
	}
	return rows, 0
}

func phaseRows(r *catchup.Result) []cuPhaseRow {
	var rows []cuPhaseRow
	for _, p := range r.Phases {
		row := cuPhaseRow{Phase: phaseWords(p.Name), From: reports.FormatAt(p.StartMs), Took: reports.FormatSecs(p.Seconds)}
		if l, ok := r.Publish.Latency[p.Name]; ok && l.Count > 0 {
			row.Acks, row.P50, row.P99, row.Max = reports.FormatCount(l.Count), reports.FormatMs(l.P50Ms), reports.FormatMs(l.P99Ms), reports.FormatMs(l.MaxMs)
			if mb, ok := r.Publish.AckedMBps[p.Name]; ok {
				row.MBps = fmt.Sprintf("%.1f", mb)
			}
		}
		if e := r.Publish.Errors[p.Name]; len(e) > 0 {
			row.Errors = strings.TrimPrefix(publishErrors(catchup.PublishSummary{Errors: map[catchup.Phase]map[string]int64{p.Name: e}}), string(p.Name)+": ")
		}
		rows = append(rows, row)
	}
	return rows
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
