package reports

import (
	"math"
	"strings"
)

// timelines lays the cells' charts side by side, one row per kind (in the
// order kinds gives, then as met), with one y axis per row so the cells
// compare at a glance.
func timelines(cells []*CellSection, kinds []string, cols int) []timelineRow {
	var rows []timelineRow
	w := 1100
	if cols > 1 {
		w = 560
	}
	for _, kind := range chartKinds(cells, kinds) {
		charts := make([]*Chart, len(cells))
		var cs []*Chart
		for i, c := range cells {
			for _, ch := range c.Charts {
				if ch.Kind == kind {
					charts[i] = ch
					cs = append(cs, ch)
					break
				}
			}
		}
		if len(cs) == 0 {
			continue
		}
		hi, lo, xmax := 0.0, math.Inf(1), 0.0
		for _, ch := range cs {
			if l, h := ch.yRange(); !math.IsNaN(h) {
				hi, lo = math.Max(hi, h), math.Min(lo, l)
			}
			xmax = math.Max(xmax, ch.XMax)
		}
		row := timelineRow{Title: kind}
		for i, c := range cells {
			ch := charts[i]
			if ch == nil && cols == 1 {
				// Stacked one a line, a missing chart is a line of text.
				why := "no memory samples recorded"
				if kind != KindMemory {
					why = strings.TrimSuffix(strings.TrimPrefix(orDefault(c.ChartNote, why), "No charts: "), ".")
				}
				row.Missing = append(row.Missing, c.Short+" ("+why+")")
				continue
			}
			if ch == nil {
				why := orDefault(c.ChartNote, "no data")
				if kind == KindMemory {
					why = "no memory samples recorded for this cell"
				}
				ch = &Chart{Title: kind, Empty: why}
			} else {
				ch.XMax = xmax
				// A chart that keeps its own scale (error counts: a few
				// timeouts next to thousands of rejections would vanish on
				// a shared one) shares only the time axis.
				if !ch.OwnScale && hi > 0 {
					ch.YMax = hi
					if ch.YLog && lo > 0 && !math.IsInf(lo, 0) {
						ch.YMin = lo
					}
				}
			}
			if len(cells) > cols {
				ch.Title = c.Short + ": " + ch.Title
				if cols == 1 {
					ch.H = 220
				}
			}
			ch.W = w
			row.Charts = append(row.Charts, ch.HTML())
		}
		rows = append(rows, row)
	}
	return rows
}

// chartKinds is kinds, then the kinds of the cells' charts it lacks, as met.
func chartKinds(cells []*CellSection, kinds []string) []string {
	out := append([]string(nil), kinds...)
	seen := map[string]bool{}
	for _, k := range kinds {
		seen[k] = true
	}
	for _, c := range cells {
		for _, ch := range c.Charts {
			if !seen[ch.Kind] {
				seen[ch.Kind] = true
				out = append(out, ch.Kind)
			}
		}
	}
	return out
}
