package catchupview

import (
	"fmt"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// slopeBlock charts the catching-up node's peak RSS against the backlog, one
// line per server version and Direct Get, when the cells differ in --backlog:
// the chart a server developer fixing the catch-up memory wants.
func slopeBlock(r *reports.Run) (reports.Block, bool) {
	var dirs []string
	for _, c := range r.Cells {
		if c.Rel != "" {
			dirs = append(dirs, filepath.Join(r.Dir, filepath.FromSlash(c.Rel)))
		}
	}
	fit := catchup.SlopeLines(dirs)
	const gib = float64(1 << 30)
	ch := reports.NewChart("Peak RSS of the catching-up node against the backlog", "backlog caught up (GiB)", "peak RSS (GiB)")
	var words, censored []string
	for i, l := range fit.Lines {
		if !l.Fitted { // fewer than two backlogs left: the check says which cells are missing
			continue
		}
		var pts plotter.XYs
		for _, p := range l.Points {
			pts = append(pts, plotter.XY{X: float64(p.Backlog) / gib, Y: float64(p.Demand) / gib})
			if p.Censored != "" {
				censored = append(censored, fmt.Sprintf("%s (%s: at least %s)", p.Cell, p.Censored, reports.FormatBytes(float64(p.Demand))))
			}
		}
		name := fmt.Sprintf("%s, Direct Get %s: slope %.2f", l.ServerVersion, reports.OnOff(l.DirectGet), l.Slope)
		ch.Line(name, pts, reports.LineStyle(reports.SeriesColor(i), 1.6, false))
		words = append(words, name)
	}
	if len(words) == 0 {
		return reports.Block{}, false
	}
	lead := fmt.Sprintf("One point per cell, one line per release; the slope is bytes of peak RSS per byte of backlog (least squares). "+
		"A flat line is bounded memory; a slope above %.2f (--max-memory-slope) grows with the backlog. %s.", fit.Bound, strings.Join(words, "; "))
	if len(censored) > 0 {
		lead += " A cell whose limit held its target's peak down is drawn at the least its demand was: " + strings.Join(censored, "; ") + "."
	}
	return reports.Block{ID: "memory-vs-backlog", Nav: "Memory vs backlog", Title: "Memory against backlog", Lead: lead, Chart: ch.HTML()}, true
}
