// Package queueview is the queue workload's part of the report: delivery
// latency and consumer pending over time, with the fault windows shaded,
// read from each cell's queue.csv. The rest of the page (the verdict
// sentence, the checks and their counts, the cell's summary lines) is the
// generic page's.
package queueview

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/jetstream-chaos/jetstream-chaos/reports"
)

func init() { reports.RegisterView("queue", view{}) }

type view struct{}

// The rows of charts this view adds.
const (
	KindLatency = "Delivery latency"
	KindPending = "Consumer pending"
)

// series is a cell's queue.csv by column.
type series struct {
	t       []float64
	cols    map[string][]float64 // NaN-free: an empty value is skipped by its own index
	present map[string][]bool
	pending []string // the per-consumer pending columns
}

func (view) Load(cellDir string, c *reports.Cell) error {
	if cellDir == "" {
		return nil
	}
	f, err := os.Open(filepath.Join(cellDir, "queue.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		return fmt.Errorf("queue.csv: %v (%d rows)", err, len(rows))
	}
	s := &series{cols: map[string][]float64{}, present: map[string][]bool{}}
	head := rows[0]
	for _, h := range head {
		if strings.HasPrefix(h, "pending_") && h != "pending_total" {
			s.pending = append(s.pending, h)
		}
	}
	for _, r := range rows[1:] {
		for i, h := range head {
			if i >= len(r) {
				continue
			}
			v, err := strconv.ParseFloat(r[i], 64)
			if h == "second" {
				s.t = append(s.t, v)
				continue
			}
			s.cols[h] = append(s.cols[h], v)
			s.present[h] = append(s.present[h], err == nil)
		}
	}
	c.Data = s
	return nil
}

func (view) Page(p *reports.Page) {
	p.ChartKinds = append(p.ChartKinds, KindLatency, KindPending)
}

// Cell adds delivery latency and consumer pending over time.
func (view) Cell(p *reports.Page, c *reports.Cell, s *reports.CellSection) {
	sr, ok := c.Data.(*series)
	if !ok || len(sr.t) == 0 {
		return
	}
	bands := reports.FaultBands(c.Faults)
	xmax := c.Phases["workload"] // the drain after the heal is not drawn, as for every workload
	if xmax <= 0 {
		xmax = sr.t[len(sr.t)-1] + 1
	}
	lat := reports.NewTimeChart("Delivery latency (publish to first delivery)", "ms", xmax, bands)
	lat.Kind = KindLatency
	for i, col := range []string{"latency_p50_ms", "latency_p99_ms", "latency_max_ms"} {
		lat.Line(strings.TrimSuffix(strings.TrimPrefix(col, "latency_"), "_ms"), sr.points(col, xmax), reports.LineStyle(reports.SeriesColor(i), 1.2, i == 2))
	}
	pend := reports.NewTimeChart("Consumer pending", "messages", xmax, bands)
	pend.Kind = KindPending
	for i, col := range sr.pending {
		pend.Line(strings.TrimPrefix(col, "pending_"), sr.points(col, xmax), reports.LineStyle(reports.SeriesColor(i), 1.2, false))
	}
	s.Charts = append(s.Charts, lat, pend)
}

// points are a column's samples that have a value.
func (sr *series) points(col string, xmax float64) plotter.XYs {
	var out plotter.XYs
	for i, v := range sr.cols[col] {
		if i < len(sr.t) && sr.present[col][i] && sr.t[i] <= xmax {
			out = append(out, plotter.XY{X: sr.t[i], Y: v})
		}
	}
	return out
}

func (view) JUnit(*reports.Run, *reports.Cell) reports.JUnitExtra { return reports.JUnitExtra{} }
