package sourcesview

import (
	"bytes"
	"fmt"
	"html/template"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/sources"
)

func init() { reports.RegisterView(sources.Name, view{}) }

// view adds to the generic page each copy's lag over time, in messages
// and in seconds, with the fault windows, and the copy graph.
type view struct{}

// KindCopyLag is the row of charts this view adds.
const KindCopyLag = "Copy lag"

// data is what Load read.
type data struct {
	cell  *sources.Cell
	lags  []sources.LinkLag
	edges []edge
}

// Load reads the cell's files.
func (view) Load(cellDir string, c *reports.Cell) error {
	if cellDir == "" {
		return nil
	}
	sc, err := sources.Load(cellDir)
	if err != nil {
		return err
	}
	lags := sources.Lags(sc)
	c.Data = &data{cell: sc, lags: lags, edges: edges(sc, lags)}
	return nil
}

func (view) Page(p *reports.Page) {
	p.ChartKinds = append(p.ChartKinds, KindCopyLag, KindCopyLag+" (s)")
}

// Cell adds the two lag charts and the copy graph.
func (view) Cell(p *reports.Page, c *reports.Cell, s *reports.CellSection) {
	d, ok := c.Data.(*data)
	if !ok || len(d.lags) == 0 || len(d.lags[0].At) == 0 {
		return
	}
	xmax := 0.0
	for _, l := range d.lags {
		if len(l.At) > 0 {
			xmax = max(xmax, float64(l.At[len(l.At)-1])/1e9)
		}
	}
	bands := reports.FaultBands(c.Faults)
	msgs := reports.NewTimeChart("Origin messages each copy lacks (a sample a second)", "messages behind", xmax, bands)
	secs := reports.NewTimeChart("Age of the oldest origin message each copy lacks", "seconds behind", xmax, bands)
	msgs.Kind, secs.Kind = KindCopyLag, KindCopyLag+" (s)"
	colors := []string{reports.ColBlue, reports.ColOrange, reports.ColGreen, reports.ColPurple, reports.ColRed, reports.ColSky}
	for i, l := range d.lags {
		sty := reports.LineStyle(colors[i%len(colors)], 1.4, i == 0 && d.cell.Options.Mirror() != "")
		msgs.Line(l.Link, points(l.At, l.Msgs), sty)
		secs.Line(l.Link, points(l.At, l.Seconds), sty)
	}
	s.Charts = append(s.Charts, msgs, secs)
	s.Extra += graph(d.edges)
}

func points(at []int64, y []float64) plotter.XYs {
	out := make(plotter.XYs, len(at))
	for i := range at {
		out[i] = plotter.XY{X: float64(at[i]) / 1e9, Y: y[i]}
	}
	return out
}

func (view) JUnit(*reports.Run, *reports.Cell) reports.JUnitExtra { return reports.JUnitExtra{} }

// edge is one arrow of the copy graph: messages that went from one
// stream (or the producers) to another (or a consumer).
type edge struct {
	From, To string
	Count    int
	What     string
	Behind   string // a copy's longest stretch behind its origin
}

// edges counts the copy graph from the stored streams and the history:
// acknowledged publishes into each origin, what each copy holds of each
// origin, and the distinct messages each consumer received.
func edges(c *sources.Cell, lags []sources.LinkLag) []edge {
	behind := map[string]string{}
	for _, l := range lags {
		behind[l.Link] = reports.FormatDuration(time.Duration(l.Longest))
	}
	var out []edge
	acked := map[string]int{}
	for _, p := range c.Ops.Publishes {
		if p.H.Outcome == history.OK && !p.Duplicate {
			acked[p.Origin]++
		}
	}
	for _, o := range c.Options.OriginNames() {
		out = append(out, edge{"producers", o, acked[o], "acknowledged publishes", ""})
	}
	if m := c.Stream(c.Options.Mirror()); m != nil {
		out = append(out, edge{c.Options.Origin(1), m.Name, len(m.Messages), "messages in the mirror", behind[c.Options.Origin(1)+" -> "+m.Name]})
	}
	if s := c.Stream(c.Options.Sourced()); s != nil {
		per := map[string]int{}
		for _, m := range s.Messages {
			per[m.Source]++
		}
		for _, o := range c.Options.OriginNames() {
			out = append(out, edge{o, s.Name, per[o], "messages copied (by Nats-Stream-Source)", behind[o+" -> "+s.Name]})
		}
	}
	got := map[string]map[string]bool{}
	for _, op := range c.Ops.All {
		if op.Type != queue.OpDeliver || op.Outcome != history.OK {
			continue
		}
		m := queue.MsgOf(op)
		if got[m.Consumer] == nil {
			got[m.Consumer] = map[string]bool{}
		}
		got[m.Consumer][m.Value] = true
	}
	for _, name := range c.Options.ConsumerNames() {
		out = append(out, edge{c.Options.Sourced(), "consumer " + name, len(got[name]), "distinct messages delivered", ""})
	}
	return out
}

var graphTmpl = template.Must(template.New("graph").Parse(`<h4>Copy graph</h4>
<table class="copy-graph"><tr><th>from</th><th></th><th>to</th><th>messages</th><th>counted as</th><th>longest behind</th></tr>
{{range .}}<tr><td>{{.From}}</td><td>&rarr;</td><td>{{.To}}</td><td>{{.Count}}</td><td>{{.What}}</td><td>{{.Behind}}</td></tr>
{{end}}</table>`))

func graph(es []edge) template.HTML {
	var b bytes.Buffer
	if err := graphTmpl.Execute(&b, es); err != nil {
		return template.HTML(template.HTMLEscapeString(fmt.Sprintf("copy graph: %v", err)))
	}
	return template.HTML(b.String())
}
