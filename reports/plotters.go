package reports

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The two plotters gonum has no shape for: fault windows shaded across the
// data area, and vertical marks.

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
