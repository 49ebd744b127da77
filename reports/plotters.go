package reports

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The two plotters gonum has no shape for: fault windows shaded across the
// data area, and vertical marks.

// bandPlotter shades fault windows across the whole height of the data
// area, with their label at the top. Among the bands of a chart with a
// triggered fault, which fires whenever its event comes, inside another
// window or a view's phase, the label of a band that starts inside
// another goes under that one's where the two would cross, and labels are
// drawn after every fill, so none is shaded over.
type bandPlotter []Band

// placedLabel is a band's label: its band's time span, its right edge and
// the lines it takes from the top.
type placedLabel struct {
	from, to float64
	right    vg.Length
	lo, hi   int
}

func (bs bandPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := textStyle(sans, ptSmall, inkFault)
	sty.YAlign = draw.YTop
	sub := sty
	sub.Font.Size = vg.Points(ptSub)
	var placed []placedLabel
	var labels []func()
	stack := slices.ContainsFunc(bs, func(b Band) bool { return b.triggered })
	for _, b := range bs {
		if b.To < p.X.Min || b.From > p.X.Max {
			continue
		}
		x0, x1 := trX(math.Max(p.X.Min, b.From)), trX(math.Min(p.X.Max, b.To))
		x1 = max(x1, x0+1)
		c.FillPolygon(b.fill(), []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
		lines := 1
		if b.Sub != "" {
			lines = 2
		}
		at := 0
		if stack {
			at = labelLine(placed, b, x0+2, lines)
		}
		placed = append(placed, placedLabel{b.From, b.To, x0 + 6 + max(sty.Width(b.Label), sub.Width(b.Sub)), at, at + lines})
		label := func() {
			sty.Color, sub.Color = inkFault, inkFault
			if b.Legend != "" {
				sty.Color, sub.Color = inkAxis, inkAxis
			}
			line := sty.Height("X") + 2
			y := c.Max.Y - 2 - vg.Length(at)*line
			if b.Label != "" {
				c.FillText(sty, vg.Point{X: x0 + 2, Y: y}, b.Label)
			}
			if b.Sub != "" {
				c.FillText(sub, vg.Point{X: x0 + 2, Y: y - line}, b.Sub)
			}
		}
		if stack {
			labels = append(labels, label)
		} else {
			label()
		}
	}
	for _, l := range labels {
		l()
	}
}

// labelLine is the first line from the top where a band's label of lines
// lines, starting at x, crosses no label of a band it starts inside.
func labelLine(placed []placedLabel, b Band, x vg.Length, lines int) int {
	at := 0
	for moved := true; moved; {
		moved = false
		for _, l := range placed {
			inside := b.From >= l.from && b.From < l.to
			if inside && x < l.right && at < l.hi && at+lines > l.lo {
				at, moved = l.hi, true
			}
		}
	}
	return at
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
