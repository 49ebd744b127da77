package reports

import (
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg/draw"
)

// NewBarChart is a chart of bars grouped by category (gonum's
// plotter.BarChart on a nominal x axis): each Bars call adds one bar to
// every category, and the bars of a category stand side by side.
func NewBarChart(title, xLabel, yLabel string, categories []string) *Chart {
	p := newPlot(xLabel)
	p.NominalX(categories...)
	return &Chart{Title: title, W: 1100, H: 300, Plot: p, YLabel: yLabel}
}

// Bars adds a bar a category, values[i] high, in color, named in the
// legend; a bar that is not zero has its count over it, so small bars next
// to a tall one stay readable.
func (c *Chart) Bars(name, color string, values []float64) {
	if c.Plot == nil {
		return
	}
	vals := make(plotter.Values, len(values))
	var at plotter.XYs
	var texts []string
	for j, v := range values {
		vals[j] = v
		if v > 0 {
			at = append(at, plotter.XY{X: float64(j), Y: v})
			texts = append(texts, FormatCount(v))
		}
	}
	b, err := plotter.NewBarChart(vals, 1)
	if err != nil {
		c.Plot, c.Empty = nil, err.Error()
		return
	}
	b.Color = rgb(color)
	b.LineStyle.Width = 0
	c.Plot.Add(b)
	c.bars = append(c.bars, b)
	c.legend = append(c.legend, legendEntry{name, b})
	var t *plotter.Labels
	if len(at) > 0 {
		tag := textStyle(sans, ptSmall, inkText)
		tag.XAlign = draw.XCenter
		t = &plotter.Labels{XYs: at, Labels: texts, TextStyle: make([]text.Style, len(at))}
		for k := range t.TextStyle {
			t.TextStyle[k] = tag
		}
		c.Plot.Add(t)
	}
	c.tags = append(c.tags, t)
	c.Plot.X.Min, c.Plot.X.Max = -0.5, float64(len(values))-0.5
}
