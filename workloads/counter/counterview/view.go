package counterview

import (
	"math"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot/plotter"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/counter"
)

func init() { reports.RegisterView(counter.Name, view{}) }

// view adds one chart to the generic page: how far reads were behind the
// highest total already acknowledged, over time, by path.
type view struct{}

// KindReadLag is the row of charts this view adds.
const KindReadLag = "Counter read lag"

// lagWidth is the time a point of the lag chart covers.
const lagWidth = 0.25 // seconds

// lag is the worst lag of each path in each lagWidth of the run; NaN
// where the path answered no read.
type lag struct {
	t              []float64 // each bucket's middle, in seconds
	direct, leader []float64
}

// Load reads the cell's history. A cell with adds of either sign has no
// lag to chart (its counters may go down) and gets no chart.
func (view) Load(cellDir string, c *reports.Cell) error {
	if cellDir == "" {
		return nil
	}
	ops, err := history.ReadOps(filepath.Join(cellDir, "history.jsonl"))
	if err != nil {
		return err
	}
	adds, reads, err := counter.FromHistory(ops)
	if err != nil {
		return err
	}
	for _, a := range adds {
		if a.Delta <= 0 {
			return nil
		}
	}
	c.Data = lagOf(adds, reads)
	return nil
}

// lagOf is each read's distance below the highest total acknowledged (to
// any client) before it began, the worst per lagWidth and path.
func lagOf(adds []counter.Add, reads []counter.Read) *lag {
	type told struct {
		at    int64
		total int64
	}
	byCounter := map[string][]told{}
	for _, a := range adds {
		if a.Outcome == history.OK && a.Told {
			byCounter[a.Counter] = append(byCounter[a.Counter], told{a.Complete, a.Total})
		}
	}
	for _, ts := range byCounter {
		sort.Slice(ts, func(i, j int) bool { return ts[i].at < ts[j].at })
		for i := 1; i < len(ts); i++ {
			ts[i].total = max(ts[i].total, ts[i-1].total)
		}
	}
	l := &lag{}
	for _, r := range reads {
		ts := byCounter[r.Counter]
		i := sort.Search(len(ts), func(i int) bool { return ts[i].at >= r.Invoke }) // acknowledged strictly before
		if i == 0 {
			continue
		}
		b := int(float64(r.Complete) / 1e9 / lagWidth)
		for len(l.t) <= b {
			l.t = append(l.t, (float64(len(l.t))+0.5)*lagWidth)
			l.direct, l.leader = append(l.direct, math.NaN()), append(l.leader, math.NaN())
		}
		path := l.leader
		if r.Direct {
			path = l.direct
		}
		behind := float64(max(ts[i-1].total-r.Value, 0))
		if math.IsNaN(path[b]) || behind > path[b] {
			path[b] = behind
		}
	}
	return l
}

func (view) Page(p *reports.Page) { p.ChartKinds = append(p.ChartKinds, KindReadLag) }

// Cell adds the lag chart.
func (view) Cell(p *reports.Page, c *reports.Cell, s *reports.CellSection) {
	l, ok := c.Data.(*lag)
	if !ok || len(l.t) == 0 {
		return
	}
	xmax := c.Phases["workload"]
	if xmax <= 0 {
		xmax = l.t[len(l.t)-1] + lagWidth
	}
	ch := reports.NewTimeChart("Counter reads below the highest total already acknowledged (worst per 250 ms)", "units behind",
		xmax, reports.FaultBands(c.Faults))
	ch.Kind = KindReadLag
	ch.Line("through Direct Get", points(l.t, l.direct), reports.LineStyle(reports.ColOrange, 1.4, false))
	ch.Line("from the leader", points(l.t, l.leader), reports.LineStyle(reports.ColBlue, 1.4, true))
	s.Charts = append(s.Charts, ch)
}

func points(t, y []float64) plotter.XYs {
	out := make(plotter.XYs, len(t))
	for i := range t {
		out[i] = plotter.XY{X: t[i], Y: y[i]}
	}
	return out
}

func (view) JUnit(*reports.Run, *reports.Cell) reports.JUnitExtra { return reports.JUnitExtra{} }
