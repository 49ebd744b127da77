package reports

// The charts are gonum/plot plots (gonum.org/v1/plot), drawn by its SVG
// backend (vg/vgsvg) and inlined into the page. What this file adds around
// a plot: the page's fonts and colours, a title and a legend laid out in
// rows above the data (gonum's own legend is a column inside the data
// area, where it would hide the lines), the y axis shared between cells,
// and two plotters for what gonum has no shape for: fault windows shaded
// across the whole height, and vertical marks (OOM kills, the end of the
// workload).
//
// Fonts: vgsvg does not embed fonts unless asked (embedding would put the
// TTF into every chart as a data: URL), it names them:
// font-family:Liberation Sans, measured with gonum's bundled Liberation
// metrics. report.css maps that name to Liberation Sans, then Arimo, Arial
// and Helvetica, which share its metrics, so text lines up wherever the
// page is opened and nothing is fetched.

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette used across the page: colour-blind safe (Okabe-Ito) plus greys.
const (
	ColBlue   = "#0072B2"
	ColOrange = "#E69F00"
	ColGreen  = "#009E73"
	ColRed    = "#D55E00"
	ColPurple = "#CC79A7"
	ColSky    = "#56B4E9"
	ColYellow = "#F0E442"
	ColGrey   = "#777777"
	colFault  = "#f3c4c4"
)

var seriesColors = []string{ColBlue, ColOrange, ColGreen, ColRed, ColPurple, ColSky, ColYellow, ColGrey}

// SeriesColor is the colour of the i-th cell (or series), the same
// wherever it is drawn.
func SeriesColor(i int) string { return seriesColors[i%len(seriesColors)] }

// rgb parses "#rrggbb".
func rgb(hex string) color.Color {
	v, err := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	if err != nil || len(hex) != 7 {
		return color.Black
	}
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// Sizes in points; a chart's view box is in points too, and the page draws
// it about as many CSS pixels wide.
const (
	defaultW, defaultH = 760, 260
	ptTitle            = 14
	ptLabel            = 12
	ptTick             = 12
	ptLegend           = 12
	ptSmall            = 10.5
	ptSub              = 9.5
	legendRow          = 16
	thumbW             = 16
)

var (
	sans     = font.Font{Typeface: "Liberation", Variant: "Sans"}
	sansBold = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
	inkDark  = rgb("#222222")
	inkText  = rgb("#333333")
	inkAxis  = rgb("#555555")
	inkLine  = rgb("#999999")
	inkGrid  = rgb("#e4e4e4")
	inkFault = rgb("#8a2b2b")
)

func textStyle(f font.Font, size float64, c color.Color) text.Style {
	return text.Style{Color: c, Font: font.From(f, vg.Points(size)), Handler: plot.DefaultTextHandler}
}

// LineStyle is a line of colour hex ("#rrggbb"), width points, dashed or solid.
func LineStyle(hex string, width float64, dashed bool) draw.LineStyle {
	s := draw.LineStyle{Color: rgb(hex), Width: vg.Points(width)}
	if dashed {
		s.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	return s
}

// Band shades the x range [From, To] across the plot: a fault window.
type Band struct {
	From, To float64
	Label    string // drawn at the top of the band
	Sub      string // a second line under Label, smaller
	Color    string // fill; empty: the fault colour
	// Legend names the band's colour in the legend; empty: it is a fault
	// window, and the legend says so.
	Legend string
	// triggered: a triggered fault's window (faultBands), which may start
	// inside any other band.
	triggered bool
}

// Mark is a vertical line at X: an OOM kill, the end of the workload.
type Mark struct {
	X     float64
	Label string
	Color string
	Solid bool
}

type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// Chart is a gonum plot with what the page puts around it.
type Chart struct {
	// Kind names the row of charts over time it is drawn in, next to the
	// other cells' charts of the kind (KindThroughput, ...; a view's own).
	Kind  string
	Title string
	// YLabel names the y axis and its unit. It is drawn here, not by
	// gonum: gonum places a centred y label by the arithmetic middle of the
	// range, which on a log scale is near the top, and then shrinks the
	// plot to make room for it.
	YLabel string
	Plot   *plot.Plot // nil: nothing to draw, Empty says why
	Empty  string
	W, H   int // view box in points; 0: defaultW x defaultH
	// XMax is the end of a time axis, which runs from 0; 0: from the data.
	XMax float64
	YLog bool
	// YMin (log scale only) and YMax fix the y axis, to share it between
	// cells; 0: from the data.
	YMin, YMax float64
	// OwnScale keeps the chart's y axis its own in a row of charts over
	// time; the row shares the time axis only.
	OwnScale bool
	Bands    []Band
	Notes    []string // lines of text under the chart
	// timed: a chart over time (NewTimeChart), where a watched cell's
	// events are drawn (lane).
	timed  bool
	lane   []laneItem
	legend []legendEntry
	// bars are grouped per category; their width is set once the width of
	// the data area is known.
	bars []*plotter.BarChart
	tags []*plotter.Labels
}

// newPlot is a gonum plot in the page's style: sans-serif text, grey axes,
// a light horizontal grid, no padding between the axes and the data.
func newPlot(xLabel string) *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil // the chart box is white
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Padding = 0
		a.LineStyle = draw.LineStyle{Color: inkLine, Width: vg.Points(0.8)}
		a.Tick.LineStyle = a.LineStyle
		a.Tick.Length = vg.Points(4)
		a.Label.TextStyle = withAlign(textStyle(sans, ptLabel, inkAxis), draw.XCenter, draw.YBottom)
		a.Label.Padding = vg.Points(3)
		sty := textStyle(sans, ptTick, inkAxis)
		sty.XAlign, sty.YAlign = a.Tick.Label.XAlign, a.Tick.Label.YAlign
		a.Tick.Label = sty
	}
	p.X.Label.Text = xLabel
	p.X.Label.Position = draw.PosRight
	p.Y.Tick.Marker = countTicks
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal = draw.LineStyle{Color: inkGrid, Width: vg.Points(0.8)}
	p.Add(g)
	return p
}

// NewChart is a chart of y against x, neither of them time.
func NewChart(title, xLabel, yLabel string) *Chart {
	return &Chart{Title: title, YLabel: yLabel, Plot: newPlot(xLabel)}
}

// NewTimeChart is a chart over time, x in seconds since the start, with
// the fault windows under everything.
func NewTimeChart(title, yLabel string, xmax float64, bands []Band) *Chart {
	c := &Chart{Title: title, YLabel: yLabel, Plot: newPlot("seconds since start"), XMax: xmax, Bands: bands, timed: true}
	c.Plot.X.Tick.Marker = secondTicks
	if len(bands) > 0 {
		c.Plot.Add(bandPlotter(bands))
	}
	return c
}

// Line adds pts as a line, cut to [0, XMax] and broken where Y is NaN (no
// data) or, on a log scale, not positive.
func (c *Chart) Line(name string, pts plotter.XYs, sty draw.LineStyle) {
	var run plotter.XYs
	flush := func() {
		if len(run) > 0 {
			c.Plot.Add(&plotter.Line{XYs: run, LineStyle: sty})
			run = nil
		}
	}
	for _, pt := range pts {
		if pt.X < 0 || (c.XMax > 0 && pt.X > c.XMax) {
			continue
		}
		if math.IsNaN(pt.Y) || math.IsInf(pt.Y, 0) || (c.YLog && pt.Y <= 0) {
			flush()
			continue
		}
		run = append(run, pt)
	}
	flush()
	if name != "" {
		c.legend = append(c.legend, legendEntry{name, &plotter.Line{LineStyle: sty}})
	}
}

// HLine draws a horizontal line at y across the plot, named in the legend.
func (c *Chart) HLine(name string, y float64, sty draw.LineStyle) {
	f := plotter.NewFunction(func(float64) float64 { return y })
	f.Samples = 2
	f.LineStyle = sty
	c.Plot.Add(f)
	c.Plot.Y.Max = math.Max(c.Plot.Y.Max, y) // a function has no data range
	c.legend = append(c.legend, legendEntry{name, &plotter.Line{LineStyle: sty}})
}

// stack is one layer of stacked bars.
type stack struct {
	name   string
	color  string
	values []float64 // one per bar
}

// stackedBars draws bars of width w starting at x[i], layers stacked in
// order. Each layer is a gonum histogram of the running total up to it,
// drawn from the top layer down, so every layer shows as its own band.
func (c *Chart) stackedBars(x []float64, w float64, layers []stack) {
	total := make([]float64, len(x))
	cum := make([][]float64, len(layers))
	for k, l := range layers {
		for i := range total {
			if i < len(l.values) {
				total[i] += l.values[i]
			}
		}
		cum[k] = append([]float64(nil), total...)
	}
	hists := make([]*plotter.Histogram, len(layers))
	for k, l := range layers {
		h := &plotter.Histogram{FillColor: rgb(l.color), LineStyle: draw.LineStyle{Width: 0}}
		for i, v := range cum[k] {
			if v > 0 && (c.XMax <= 0 || x[i] < c.XMax) {
				// A sliver between bars keeps neighbours apart.
				h.Bins = append(h.Bins, plotter.HistogramBin{Min: x[i], Max: x[i] + w*0.9, Weight: v})
			}
		}
		hists[k] = h
		c.legend = append(c.legend, legendEntry{l.name, h})
	}
	for k := len(hists) - 1; k >= 0; k-- {
		if len(hists[k].Bins) > 0 {
			c.Plot.Add(hists[k])
		}
	}
}

// Marks draws vertical marks over the data; call it after the data.
func (c *Chart) Marks(ms []Mark) {
	if len(ms) > 0 {
		c.Plot.Add(markPlotter(ms))
	}
}

// yRange is the y range of the data, NaN when there is none.
func (c *Chart) yRange() (lo, hi float64) {
	if c.Plot == nil || c.Empty != "" {
		return math.NaN(), math.NaN()
	}
	lo, hi = c.Plot.Y.Min, c.Plot.Y.Max
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return math.NaN(), math.NaN()
	}
	return lo, hi
}

// axes settles the ranges: x from 0 to XMax, y from 0 with a little room
// above, or between powers of ten on a log scale.
func (c *Chart) axes() {
	p := c.Plot
	if c.XMax > 0 {
		p.X.Min, p.X.Max = 0, c.XMax
	}
	if math.IsInf(p.X.Min, 0) || math.IsInf(p.X.Max, 0) || p.X.Max <= p.X.Min {
		p.X.Min, p.X.Max = 0, 1
	}
	lo, hi := c.yRange()
	if c.YMax > 0 {
		hi = c.YMax
	}
	if c.YLog {
		if c.YMin > 0 {
			lo = c.YMin
		}
		if math.IsNaN(lo) || lo <= 0 || math.IsNaN(hi) {
			lo, hi = 0.1, 10
		}
		lo = math.Pow(10, math.Floor(math.Log10(lo)))
		hi = math.Pow(10, math.Ceil(math.Log10(hi)))
		if hi <= lo {
			hi = lo * 10
		}
		p.Y.Scale = plot.LogScale{}
		p.Y.Min, p.Y.Max = lo, hi
		return
	}
	if math.IsNaN(hi) || hi <= 0 {
		hi = 1
	}
	p.Y.Min, p.Y.Max = 0, hi*1.05
}
