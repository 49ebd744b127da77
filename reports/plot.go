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
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
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
	Color    string // fill; empty: the fault colour
	// Legend names the band's colour in the legend; empty: it is a fault
	// window, and the legend says so.
	Legend string
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
	legend   []legendEntry
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

// NewTimeChart is a chart over time, x in seconds since the start, with
// the fault windows under everything.
func NewTimeChart(title, yLabel string, xmax float64, bands []Band) *Chart {
	c := &Chart{Title: title, YLabel: yLabel, Plot: newPlot("seconds since start"), XMax: xmax, Bands: bands}
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

// Layout around the plot, in points.
const (
	pad      = 6 // around the whole chart
	titleGap = 4 // under the title
	dataGap  = 8 // between the legend and the data
)

// layout is where the page's parts around a plot go.
type layout struct {
	area   draw.Canvas // what the plot draws into: axes and data
	left   vg.Length   // left edge of the data area: title and legend line up with it
	legend []placedEntry
	rows   int // legend rows
}

type placedEntry struct {
	x   vg.Length
	row int
	e   legendEntry
}

var (
	titleStyle  = withAlign(textStyle(sansBold, ptTitle, inkDark), draw.XLeft, draw.YTop)
	legendStyle = withAlign(textStyle(sans, ptLegend, inkText), draw.XLeft, draw.YCenter)
	yLabelStyle = func() text.Style {
		s := withAlign(textStyle(sans, ptLabel, inkAxis), draw.XCenter, draw.YTop)
		s.Rotation = math.Pi / 2
		return s
	}()
)

func withAlign(s text.Style, x text.XAlignment, y text.YAlignment) text.Style {
	s.XAlign, s.YAlign = x, y
	return s
}

// layout places the title and the legend over the data area of a w x h
// chart, in rows as wide as the data. Where the data area starts does not
// depend on the height above it, so that is known first.
func (c *Chart) layout(w, h vg.Length) layout {
	full := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}}
	left := vg.Length(pad)
	if c.YLabel != "" {
		left += yLabelStyle.Height(c.YLabel) + 4
	}
	l := layout{area: draw.Crop(full, left, -2*pad, pad, 0)}
	l.left = c.Plot.DataCanvas(l.area).Min.X
	entries := c.legend[:len(c.legend):len(c.legend)]
	seen, faults := map[string]bool{}, false
	for _, b := range c.Bands {
		switch {
		case b.Legend == "":
			faults = true
		case !seen[b.Legend]:
			seen[b.Legend] = true
			entries = append(entries, legendEntry{b.Legend, bandSwatch{b.fill()}})
		}
	}
	if faults {
		entries = append(entries, legendEntry{"fault window", faultSwatch{}})
	}
	x, row := l.left, 0
	for _, e := range entries {
		wd := thumbW + 4 + legendStyle.Width(e.name) + 14
		if x+wd > l.area.Max.X && x > l.left {
			x, row = l.left, row+1
		}
		l.legend = append(l.legend, placedEntry{x, row, e})
		x += wd
	}
	top := pad + titleStyle.Height(c.Title) + titleGap + dataGap
	if len(entries) > 0 {
		l.rows = row + 1
		top += vg.Length(l.rows) * legendRow
	}
	l.area.Max.Y -= top
	return l
}

// HTML renders the chart as an inline <svg class="chart">, its notes under it.
func (c *Chart) HTML() template.HTML {
	w, h := c.W, c.H
	if w <= 0 {
		w = defaultW
	}
	if h <= 0 {
		h = defaultH
	}
	empty := c.Plot == nil || c.Empty != ""
	var l layout
	if !empty {
		c.axes()
		l = c.layout(vg.Points(float64(w)), vg.Points(float64(h)))
		if l.rows > 1 {
			// More legend rows make the chart taller, not its data flatter.
			h += (l.rows - 1) * legendRow
			l = c.layout(vg.Points(float64(w)), vg.Points(float64(h)))
		}
	}
	cv := vgsvg.New(vg.Points(float64(w)), vg.Points(float64(h)))
	dc := draw.New(cv)
	if empty {
		dc.FillText(titleStyle, vg.Point{X: pad, Y: dc.Max.Y - pad}, c.Title)
		msg := withAlign(textStyle(sans, ptTitle, rgb(ColGrey)), draw.XCenter, draw.YCenter)
		dc.FillText(msg, dc.Center(), orDefault(c.Empty, "no data"))
	} else {
		c.draw(dc, l)
	}
	var svg bytes.Buffer
	if _, err := cv.WriteTo(&svg); err != nil {
		return template.HTML(template.HTMLEscapeString(fmt.Sprintf("chart %q: %v", c.Title, err)))
	}
	var b strings.Builder
	// vgsvg writes a standalone document: an XML prolog, a comment and an
	// <svg> sized in pt. Inline, the page sizes it by its view box.
	body := svg.String()
	if i := strings.Index(body, "<svg"); i >= 0 {
		if j := strings.IndexByte(body[i:], '>'); j >= 0 {
			body = body[i+j+1:]
		}
	}
	esc := template.HTMLEscapeString(c.Title)
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s"><title>%s</title>`, w, h, esc, esc)
	b.WriteString(trimSVG(strings.TrimSpace(body)))
	for _, n := range c.Notes {
		fmt.Fprintf(&b, `<p class="chartnote">%s</p>`, template.HTMLEscapeString(n))
	}
	return template.HTML(b.String())
}

var (
	// vgsvg spells out default font properties on every text.
	svgDefaults = strings.NewReplacer("\n\tstyle=", " style=", "font-variant:normal;", "", "font-style:normal;", "", "font-weight:normal;", "")
	svgCoords   = regexp.MustCompile(` (?:d|x|y)="[^"]*"`)
	svgDigits   = regexp.MustCompile(`(\.\d)\d+`)
)

// trimSVG keeps vgsvg's output lean: coordinates to a tenth of a point
// (vgsvg writes five significant digits) and no default font properties.
// It makes the charts about a sixth smaller and changes nothing visible.
func trimSVG(s string) string {
	s = svgCoords.ReplaceAllStringFunc(s, func(a string) string { return svgDigits.ReplaceAllString(a, "$1") })
	return svgDefaults.Replace(s)
}

func (c *Chart) draw(dc draw.Canvas, l layout) {
	p := c.Plot
	dc.FillText(titleStyle, vg.Point{X: l.left, Y: dc.Max.Y - pad}, c.Title)
	for _, it := range l.legend {
		y := dc.Max.Y - pad - titleStyle.Height(c.Title) - titleGap - vg.Length(it.row)*legendRow - legendRow/2
		box := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: it.x, Y: y - 5}, Max: vg.Point{X: it.x + thumbW, Y: y + 5}}}
		it.e.thumb.Thumbnail(&box)
		dc.FillText(legendStyle, vg.Point{X: it.x + thumbW + 4, Y: y}, it.e.name)
	}
	area := draw.Canvas{Canvas: dc.Canvas, Rectangle: l.area.Rectangle}
	data := p.DataCanvas(area)
	if c.YLabel != "" {
		dc.FillText(yLabelStyle, vg.Point{X: pad, Y: (data.Min.Y + data.Max.Y) / 2}, c.YLabel)
	}
	if len(c.bars) > 0 {
		// Bars of a category share 80 % of its slot.
		slot := data.Size().X / vg.Length(p.X.Max-p.X.Min)
		bw := slot * 0.8 / vg.Length(len(c.bars))
		for j, b := range c.bars {
			b.Width = bw - 1
			b.Offset = (vg.Length(j) - vg.Length(len(c.bars)-1)/2) * bw
			if j < len(c.tags) && c.tags[j] != nil {
				c.tags[j].Offset = vg.Point{X: b.Offset, Y: 2}
			}
		}
	}
	p.Draw(area)
}

// bandPlotter shades fault windows across the whole height of the data
// area, with their label at the top.
type bandPlotter []Band

func (bs bandPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := textStyle(sans, ptSmall, inkFault)
	sty.YAlign = draw.YTop
	for _, b := range bs {
		if b.To < p.X.Min || b.From > p.X.Max {
			continue
		}
		x0, x1 := trX(math.Max(p.X.Min, b.From)), trX(math.Min(p.X.Max, b.To))
		x1 = max(x1, x0+1)
		sty.Color = inkFault
		if b.Legend != "" {
			sty.Color = inkAxis
		}
		c.FillPolygon(b.fill(), []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
		if b.Label != "" {
			c.FillText(sty, vg.Point{X: x0 + 2, Y: c.Max.Y - 2}, b.Label)
		}
	}
}

var faultFill = withAlpha(rgb(colFault), 0.55)

// fill is the band's colour, a little transparent so grid lines show.
func (b Band) fill() color.Color {
	if b.Color == "" {
		return faultFill
	}
	return withAlpha(rgb(b.Color), 0.55)
}

// bandSwatch is the legend's sample of a band of another colour.
type bandSwatch struct{ c color.Color }

func (s bandSwatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.c, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

func withAlpha(c color.Color, a float64) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: uint8(a * 255)}
}

// faultSwatch is the legend's sample of a fault window.
type faultSwatch struct{}

func (faultSwatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(faultFill, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

// markPlotter draws vertical marks across the data area; labels of marks
// close together stack in up to three rows at the bottom.
type markPlotter []Mark

func (ms markPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sorted := append([]Mark(nil), ms...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j].X < sorted[j-1].X; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	lastX := []vg.Length{vg.Length(math.Inf(-1)), vg.Length(math.Inf(-1)), vg.Length(math.Inf(-1))}
	for _, m := range sorted {
		x := trX(math.Min(p.X.Max, math.Max(p.X.Min, m.X)))
		sty := textStyle(sans, ptSmall, rgb(orDefault(m.Color, "#444444")))
		sty.XAlign = draw.XRight
		row := 0
		for r := range lastX {
			if x-lastX[r] > sty.Width(m.Label)+8 {
				row = r
				break
			}
			row = (r + 1) % len(lastX)
		}
		lastX[row] = x
		ls := draw.LineStyle{Color: sty.Color, Width: vg.Points(1.5)}
		if !m.Solid {
			ls.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		}
		c.StrokeLine2(ls, x, c.Min.Y, x, c.Max.Y)
		if m.Label != "" {
			c.FillText(sty, vg.Point{X: x - 2, Y: c.Min.Y + 3 + vg.Length(row)*11}, m.Label)
		}
	}
}

// countTicks are gonum's default ticks, labelled 1,500 rather than 1500;
// for a small range of counts, where gonum would label 0.5 or 2.5, one tick per
// whole step instead.
var countTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	whole := true
	for i := range ts {
		if ts[i].Label != "" {
			whole = whole && ts[i].Value == math.Trunc(ts[i].Value)
			ts[i].Label = FormatCount(ts[i].Value)
		}
	}
	if whole || hi-lo < 1 || hi-lo > 20 {
		return ts
	}
	step := 1.0
	for (hi-lo)/step > 6 {
		step++
	}
	ts = ts[:0]
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: FormatCount(v)})
	}
	return ts
})

// secondTicks label a time axis in whole seconds at a round step (1, 2, 5,
// 10, 20, 30, 60, ...), four to eight of them: gonum's default would write
// 0.00 and 25.00 for a 27 s cell.
var secondTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	span := hi - lo
	if span <= 0 || math.IsInf(span, 0) || math.IsNaN(span) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600} {
		step = s
		if span/s <= 8 {
			break
		}
	}
	if span/step < 1 { // under a second: gonum's decimals
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		for m := 1; m < 5 && step >= 5; m++ { // unlabelled minor ticks
			if mv := v + float64(m)*step/5; mv <= hi {
				ts = append(ts, plot.Tick{Value: mv})
			}
		}
	}
	return ts
})

// MsLogTicks are gonum's log ticks for milliseconds: 100 µs, 1.0 ms, 10 ms.
var MsLogTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	ts := plot.LogTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = FormatMs(ts[i].Value)
		}
	}
	return ts
})

// ByteTicks are round in the binary unit the range reaches (200 MiB, not
// 209.7 MB).
var ByteTicks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	unit := 1.0
	for unit*1024 <= hi/2 && unit < 1<<40 {
		unit *= 1024
	}
	ts := plot.DefaultTicks{}.Ticks(lo/unit, hi/unit)
	name := map[float64]string{1: "B", 1 << 10: "KiB", 1 << 20: "MiB", 1 << 30: "GiB", 1 << 40: "TiB"}[unit]
	for i := range ts {
		if ts[i].Label != "" {
			// In the axis's unit: 1,000 MiB next to 500 MiB, not 0.98 GiB.
			ts[i].Label = FormatCount(ts[i].Value) + " " + name
			if ts[i].Value == 0 {
				ts[i].Label = "0 B"
			}
		}
		ts[i].Value *= unit
	}
	return ts
})
