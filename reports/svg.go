package reports

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"
)

// The charts are drawn by this small SVG writer rather than gonum/plot: the
// page needs three shapes (lines, stacked bars, grouped bars) with shaded
// fault windows and hover titles, and gonum/plot would add a dozen modules
// and font embedding to draw them. Everything here is plain text with fixed
// colours, so the SVG reads the same inline or saved on its own.

// Point is one sample of a line; a NaN Y breaks the line (no data there).
type Point struct{ X, Y float64 }

// Line is a series drawn as a polyline.
type Line struct {
	Name   string
	Color  string
	Dashed bool
	Width  float64 // stroke width; 0: 1.6
	Points []Point
}

// Band shades the x range [From, To] across the plot: a fault window.
type Band struct {
	From, To float64
	Label    string // drawn at the top of the band
	Title    string // hover text
	Color    string // fill; empty: the fault colour
}

// Mark is a vertical line at X: an OOM kill, the end of the workload.
type Mark struct {
	X     float64
	Label string
	Title string
	Color string
	Solid bool
}

// HLine is a horizontal line at Y: a memory limit.
type HLine struct {
	Y     float64
	Label string
	Color string
}

// Stack is one layer of stacked bars; Values[i] belongs to the bar at
// TimeChart.BarX[i].
type Stack struct {
	Name   string
	Color  string
	Values []float64
}

// TimeChart is an x-y chart over time (x in seconds since the run start).
type TimeChart struct {
	Title  string
	YLabel string
	YLog   bool                 // log scale; values <= 0 are gaps
	YFmt   func(float64) string // tick labels; nil: %g
	XMax   float64
	YMax   float64 // 0: from the data
	YMin   float64 // log scale only; 0: from the data
	YBytes bool    // ticks at round binary sizes (MiB, GiB)
	W, H   int     // view box; 0: defaultW x defaultH
	Bands  []Band
	Marks  []Mark
	HLines []HLine
	Lines  []Line
	BarX   []float64 // left edge of each bar
	BarW   float64   // width of every bar, in x units
	Stacks []Stack
	Empty  string // shown instead of a plot when there is nothing to draw
}

const (
	defaultW, defaultH             = 760, 260
	padL, padR, padT, padB float64 = 74, 14, 50, 34
)

func dims(w, h int) (int, int) {
	if w <= 0 {
		w = defaultW
	}
	if h <= 0 {
		h = defaultH
	}
	return w, h
}

// Palette used across the page: colour-blind safe (Okabe-Ito) plus greys.
const (
	colBlue   = "#0072B2"
	colOrange = "#E69F00"
	colGreen  = "#009E73"
	colRed    = "#D55E00"
	colPurple = "#CC79A7"
	colSky    = "#56B4E9"
	colYellow = "#F0E442"
	colGrey   = "#777777"
	colFault  = "#f3c4c4"
)

var seriesColors = []string{colBlue, colOrange, colGreen, colRed, colPurple, colSky, colYellow, colGrey}

type svgBuf struct{ strings.Builder }

func (b *svgBuf) f(format string, args ...any) { fmt.Fprintf(&b.Builder, format, args...) }

func esc(s string) string { return template.HTMLEscapeString(s) }

// SVG renders the chart.
func (c *TimeChart) SVG() template.HTML {
	var b svgBuf
	chartW, chartH := dims(c.W, c.H)
	b.f(`<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">`, chartW, chartH, esc(c.Title))
	b.f(`<title>%s</title>`, esc(c.Title))
	b.f(`<text x="%g" y="16" class="ct" font-size="13" font-weight="600" fill="#222">%s</text>`, padL, esc(c.Title))
	if c.Empty != "" || c.XMax <= 0 {
		msg := c.Empty
		if msg == "" {
			msg = "no data"
		}
		b.f(`<text x="%d" y="%d" text-anchor="middle" font-size="13" fill="#777">%s</text></svg>`, chartW/2, chartH/2, esc(msg))
		return template.HTML(b.String())
	}
	pw, ph := float64(chartW)-padL-padR, float64(chartH)-padT-padB
	ymin, ymax := c.YRange()
	sx := func(x float64) float64 { return padL + x/c.XMax*pw }
	sy := func(y float64) float64 {
		if c.YLog {
			return padT + ph - (math.Log10(y)-math.Log10(ymin))/(math.Log10(ymax)-math.Log10(ymin))*ph
		}
		return padT + ph - (y-ymin)/(ymax-ymin)*ph
	}
	clampY := func(y float64) float64 { return math.Max(padT, math.Min(padT+ph, y)) }
	// Fault windows under everything.
	for _, bd := range c.Bands {
		x0, x1 := sx(math.Max(0, bd.From)), sx(math.Min(c.XMax, bd.To))
		if x1 < x0+1 {
			x1 = x0 + 1
		}
		col := bd.Color
		if col == "" {
			col = colFault
		}
		b.f(`<g class="band"><title>%s</title><rect x="%.1f" y="%g" width="%.1f" height="%g" fill="%s" fill-opacity="0.55"/>`, esc(bd.Title), x0, padT, x1-x0, ph, col)
		if bd.Label != "" {
			b.f(`<text x="%.1f" y="%g" font-size="10" fill="#8a2b2b">%s</text>`, x0+2, padT+10, esc(bd.Label))
		}
		b.f(`</g>`)
	}
	// Grid and axes.
	yfmt := c.YFmt
	if yfmt == nil {
		yfmt = func(v float64) string { return fmt.Sprintf("%g", v) }
	}
	for _, t := range c.yTicks(ymin, ymax) {
		y := sy(t)
		b.f(`<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#e4e4e4"/>`, padL, padL+pw, y, y)
		b.f(`<text x="%g" y="%.1f" text-anchor="end" font-size="11" fill="#555">%s</text>`, padL-5, y+4, esc(yfmt(t)))
	}
	for _, t := range niceTicks(0, c.XMax, 8) {
		x := sx(t)
		b.f(`<line x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="#999"/>`, x, x, padT+ph, padT+ph+4)
		b.f(`<text x="%.1f" y="%g" text-anchor="middle" font-size="11" fill="#555">%s</text>`, x, padT+ph+16, fmtTick(t))
	}
	b.f(`<text x="%g" y="%d" text-anchor="end" font-size="11" fill="#555">seconds since start</text>`, padL+pw, chartH-3)
	b.f(`<text transform="translate(13 %g) rotate(-90)" text-anchor="middle" font-size="11" fill="#555">%s</text>`, padT+ph/2, esc(c.YLabel))
	b.f(`<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#999"/>`, padL, padL+pw, padT+ph, padT+ph)
	// Stacked bars.
	if len(c.Stacks) > 0 {
		bw := math.Max(0.8, c.BarW/c.XMax*pw-0.4)
		for i, x := range c.BarX {
			if x >= c.XMax {
				continue
			}
			bw := math.Min(bw, sx(c.XMax)-sx(x))
			base := 0.0
			for _, s := range c.Stacks {
				if i >= len(s.Values) || s.Values[i] <= 0 {
					continue
				}
				y0, y1 := sy(base), sy(base+s.Values[i])
				b.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s at %ss: %s</title></rect>`,
					sx(x), y1, bw, math.Max(0.5, y0-y1), s.Color, esc(s.Name), fmtTick(x), esc(yfmt(s.Values[i])))
				base += s.Values[i]
			}
		}
	}
	for _, h := range c.HLines {
		y := clampY(sy(h.Y))
		b.f(`<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="6 3"/>`, padL, padL+pw, y, y, h.Color)
		b.f(`<text x="%g" y="%.1f" text-anchor="end" font-size="10" fill="%s">%s</text>`, padL+pw-2, y-3, h.Color, esc(h.Label))
	}
	for _, l := range c.Lines {
		d := linePath(l.Points, c.XMax, sx, sy, c.YLog, clampY)
		if d == "" {
			continue
		}
		w := l.Width
		if w == 0 {
			w = 1.6
		}
		dash := ""
		if l.Dashed {
			dash = ` stroke-dasharray="4 3"`
		}
		b.f(`<path d="%s" fill="none" stroke="%s" stroke-width="%g"%s stroke-linejoin="round"><title>%s</title></path>`, d, l.Color, w, dash, esc(l.Name))
	}
	// Labels of marks close together stack in up to three rows at the top.
	marks := append([]Mark(nil), c.Marks...)
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].X < marks[j].X })
	lastX := make([]float64, 3)
	for i := range lastX {
		lastX[i] = math.Inf(-1)
	}
	for _, m := range marks {
		x := sx(math.Min(c.XMax, math.Max(0, m.X)))
		row := 0
		for r := range lastX {
			if x-lastX[r] > float64(len(m.Label))*5.5+8 {
				row = r
				break
			}
			row = (r + 1) % len(lastX)
		}
		lastX[row] = x
		col := m.Color
		if col == "" {
			col = "#444"
		}
		dash := ` stroke-dasharray="3 3"`
		if m.Solid {
			dash = ""
		}
		b.f(`<g><title>%s</title><line x1="%.1f" x2="%.1f" y1="%g" y2="%g" stroke="%s" stroke-width="1.5"%s/>`, esc(m.Title), x, x, padT, padT+ph, col, dash)
		if m.Label != "" {
			b.f(`<text x="%.1f" y="%g" font-size="10" text-anchor="end" fill="%s">%s</text>`, x-2, padT+ph-4-float64(row)*11, col, esc(m.Label))
		}
		b.f(`</g>`)
	}
	b.legend(c.legend(), padL+pw)
	b.f(`</svg>`)
	return template.HTML(b.String())
}

type legendItem struct {
	name, color string
	dashed      bool
	box         bool
}

func (c *TimeChart) legend() []legendItem {
	var out []legendItem
	for _, l := range c.Lines {
		out = append(out, legendItem{l.Name, l.Color, l.Dashed, false})
	}
	for _, s := range c.Stacks {
		out = append(out, legendItem{s.Name, s.Color, false, true})
	}
	if len(c.Bands) > 0 {
		out = append(out, legendItem{"fault window", colFault, false, true})
	}
	return out
}

// legend draws the items under the title, left to right, wrapping at
// right (at most two lines).
func (b *svgBuf) legend(items []legendItem, right float64) {
	x, y := padL, 30.0
	for _, it := range items {
		w := float64(len([]rune(it.name)))*5.9 + 28
		if x+w > right && x > padL {
			x, y = padL, y+12
		}
		if it.box {
			b.f(`<rect x="%.1f" y="%.1f" width="12" height="9" fill="%s"/>`, x, y-8, it.color)
		} else {
			dash := ""
			if it.dashed {
				dash = ` stroke-dasharray="4 3"`
			}
			b.f(`<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2.2"%s/>`, x, x+14, y-4, y-4, it.color, dash)
		}
		b.f(`<text x="%.1f" y="%.1f" font-size="11" fill="#333">%s</text>`, x+17, y, esc(it.name))
		x += w
	}
}

func linePath(pts []Point, xmax float64, sx, sy func(float64) float64, ylog bool, clamp func(float64) float64) string {
	var d strings.Builder
	pen := false
	for _, p := range pts {
		if p.X < 0 || p.X > xmax {
			continue
		}
		if math.IsNaN(p.Y) || math.IsInf(p.Y, 0) || (ylog && p.Y <= 0) {
			pen = false
			continue
		}
		cmd := "L"
		if !pen {
			cmd = "M"
		}
		fmt.Fprintf(&d, "%s%.1f %.1f", cmd, sx(p.X), clamp(sy(p.Y)))
		pen = true
	}
	return d.String()
}

// YRange is the y axis the chart will draw.
func (c *TimeChart) YRange() (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) || (c.YLog && v <= 0) {
			return
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	for _, l := range c.Lines {
		for _, p := range l.Points {
			if c.XMax <= 0 || p.X <= c.XMax {
				see(p.Y)
			}
		}
	}
	for i, x := range c.BarX {
		if c.XMax > 0 && x >= c.XMax {
			continue
		}
		sum := 0.0
		for _, s := range c.Stacks {
			if i < len(s.Values) {
				sum += s.Values[i]
			}
		}
		see(sum)
	}
	for _, h := range c.HLines {
		see(h.Y)
	}
	if c.YMax > 0 {
		hi = c.YMax
	}
	if c.YLog {
		if c.YMin > 0 {
			lo = c.YMin
		}
		if math.IsInf(lo, 0) {
			return 0.1, 10
		}
		lo = math.Pow(10, math.Floor(math.Log10(lo)))
		hi = math.Pow(10, math.Ceil(math.Log10(hi)))
		if hi <= lo {
			hi = lo * 10
		}
		return lo, hi
	}
	if c.YMax > 0 {
		return 0, c.YMax
	}
	if math.IsInf(hi, 0) || hi <= 0 {
		return 0, 1
	}
	t := c.linTicks(0, hi*1.05)
	return 0, math.Max(t[len(t)-1], hi*1.05)
}

// linTicks are round linear ticks; for byte axes, round in the binary unit
// the range reaches (so 512 MiB, not 536.9 MB).
func (c *TimeChart) linTicks(lo, hi float64) []float64 {
	if !c.YBytes {
		return niceTicks(lo, hi, 5)
	}
	unit := 1.0
	for unit*1024 <= hi/2 && unit < 1<<40 {
		unit *= 1024
	}
	t := niceTicks(lo/unit, hi/unit, 5)
	for i := range t {
		t[i] *= unit
	}
	return t
}

func (c *TimeChart) yTicks(lo, hi float64) []float64 {
	if !c.YLog {
		return c.linTicks(lo, hi)
	}
	var out []float64
	for v := lo; v <= hi*1.0001; v *= 10 {
		out = append(out, v)
	}
	return out
}

// niceTicks returns about n round tick values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if hi <= lo || n < 1 {
		return []float64{lo}
	}
	step := niceStep((hi - lo) / float64(n))
	var out []float64
	for k := math.Ceil(lo / step); k*step <= hi+step*1e-9; k++ {
		// Round to 12 digits so 3*0.2 is 0.6, not 0.6000000000000001.
		v, _ := strconv.ParseFloat(strconv.FormatFloat(k*step, 'g', 12, 64), 64)
		out = append(out, v)
	}
	if len(out) == 0 {
		out = []float64{lo}
	}
	return out
}

// niceStep rounds raw up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / p; {
	case f <= 1:
		return p
	case f <= 2:
		return 2 * p
	case f <= 5:
		return 5 * p
	}
	return 10 * p
}

func fmtTick(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}
