package batchview

import (
	"path/filepath"

	"gonum.org/v1/plot/plotter"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/batch"
)

func init() { reports.RegisterView(batch.Name, view{}) }

// view adds one chart to the generic page: the multi-subject reads
// answered each second, with messages or 404 No Results (no_results: a
// replica behind the sequence asked answers so), over the fault windows.
type view struct{}

// KindMultiReads is the row of charts this view adds.
const KindMultiReads = "Multi-subject reads"

// multiReads counts answered multi-subject reads per second.
type multiReads struct {
	withMsgs, empty []float64 // index: the second the read ended in
}

// Load reads the cell's history; a cell without multi-subject reads
// (Direct Get off) gets no chart.
func (view) Load(cellDir string, c *reports.Cell) error {
	if cellDir == "" {
		return nil
	}
	ops, err := history.ReadOps(filepath.Join(cellDir, "history.jsonl"))
	if err != nil {
		return err
	}
	rec, err := batch.FromHistory(ops)
	if err != nil {
		return err
	}
	if len(rec.Snapshots) == 0 {
		return nil
	}
	m := &multiReads{}
	for _, s := range rec.Snapshots {
		sec := int(ops[s.Op].Complete / 1e9)
		for len(m.withMsgs) <= sec {
			m.withMsgs, m.empty = append(m.withMsgs, 0), append(m.empty, 0)
		}
		if len(s.Got) == 0 {
			m.empty[sec]++
		} else {
			m.withMsgs[sec]++
		}
	}
	c.Data = m
	return nil
}

func (view) Page(p *reports.Page) { p.ChartKinds = append(p.ChartKinds, KindMultiReads) }

// Cell adds the chart of multi-subject reads.
func (view) Cell(p *reports.Page, c *reports.Cell, s *reports.CellSection) {
	m, ok := c.Data.(*multiReads)
	if !ok {
		return
	}
	xmax := c.Phases["workload"]
	if xmax <= 0 {
		xmax = float64(len(m.withMsgs))
	}
	ch := reports.NewTimeChart("Multi-subject reads through Direct Get, answered per second", "reads/s", xmax, reports.FaultBands(c.Faults))
	ch.Kind = KindMultiReads
	ch.Line("with messages", perSecond(m.withMsgs), reports.LineStyle(reports.ColBlue, 1.4, false))
	ch.Line("404 No Results", perSecond(m.empty), reports.LineStyle(reports.ColRed, 1.4, true))
	s.Charts = append(s.Charts, ch)
}

// perSecond puts each second's count at its middle.
func perSecond(n []float64) plotter.XYs {
	out := make(plotter.XYs, len(n))
	for i, v := range n {
		out[i] = plotter.XY{X: float64(i) + 0.5, Y: v}
	}
	return out
}

func (view) JUnit(*reports.Run, *reports.Cell) reports.JUnitExtra { return reports.JUnitExtra{} }
