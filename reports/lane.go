package reports

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/jetstream-chaos/jetstream-chaos/watch"
)

// The event lane: a strip over a chart's data where each event of a
// watched cell is a marker (its kind by shape and colour, its node beside
// it) with a dotted line down through the data, and each triggered fault's
// effect a red marker joined to its event, a solid line down, its delay
// beside it. vgsvg writes no hover text, so the lane adds its own: an
// invisible <rect> with a <title> over each marker and its line.

// laneLead says how to read the lane, after the page's lead on the charts.
const laneLead = "Markers over a watched cell's charts are the events the cluster's watcher saw, by kind, the node beside each " +
	"(hover one for its time, how it was seen and its log line); a dark red marker and line is when a triggered fault took effect, " +
	"joined to the event that fired it, its delay beside it."

const (
	laneRow    = 13 // points a row of markers takes
	laneRowMax = 3  // rows; a marker that fits none overlaps in the one freed first
	laneGap    = 4  // between the data and the first row
	glyphR     = 3.5
)

// kindStyle is how a kind of event is drawn.
type kindStyle struct {
	color string
	shape draw.GlyphDrawer
}

var (
	kindStyles = map[string]kindStyle{
		string(watch.LeaderChange):     {ColBlue, draw.PyramidGlyph{}},
		string(watch.MetaLeaderChange): {ColSky, draw.PyramidGlyph{}},
		string(watch.CatchupStart):     {ColOrange, draw.BoxGlyph{}},
		string(watch.CatchupEnd):       {ColGreen, draw.BoxGlyph{}},
		string(watch.Snapshot):         {ColPurple, draw.CircleGlyph{}},
		string(watch.Restart):          {ColRed, draw.CircleGlyph{}},
		string(watch.Log):              {"#444444", diamondGlyph{}},
	}
	otherKind   = kindStyle{ColGrey, draw.CircleGlyph{}}
	effectStyle = kindStyle{"#8a2b2b", downGlyph{}} // inkFault
)

func styleOf(it laneItem) kindStyle {
	if it.effect() {
		return effectStyle
	}
	if s, ok := kindStyles[it.Kind]; ok {
		return s
	}
	return otherKind
}

func (s kindStyle) glyph() draw.GlyphStyle {
	return draw.GlyphStyle{Color: rgb(s.color), Radius: vg.Points(glyphR), Shape: s.shape}
}

// diamondGlyph is a filled diamond; downGlyph a filled triangle pointing
// down, at the data.
type (
	diamondGlyph struct{}
	downGlyph    struct{}
)

func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.2
	c.FillPolygon(sty.Color, []vg.Point{{X: pt.X, Y: pt.Y + r}, {X: pt.X + r, Y: pt.Y}, {X: pt.X, Y: pt.Y - r}, {X: pt.X - r, Y: pt.Y}})
}

func (downGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.2
	c.FillPolygon(sty.Color, []vg.Point{{X: pt.X - r, Y: pt.Y + r}, {X: pt.X + r, Y: pt.Y + r}, {X: pt.X, Y: pt.Y - r}})
}

// glyphThumb is a kind's sample in the legend.
type glyphThumb struct{ s kindStyle }

func (g glyphThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyphNoClip(g.s.glyph(), c.Center())
}

// laneLegend names the kinds of the markers placed, in the order of
// watch.Kinds, then log and other kinds, then the effect.
func laneLegend(items []placedItem) []legendEntry {
	var kinds []string
	effect := false
	for _, it := range items {
		switch {
		case it.effect():
			effect = true
		case !slices.Contains(kinds, it.Kind):
			kinds = append(kinds, it.Kind)
		}
	}
	order := append(slices.Clone(watch.Kinds), watch.Log)
	rank := func(k string) int {
		if i := slices.Index(order, watch.Kind(k)); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(kinds, func(a, b string) int { return rank(a) - rank(b) })
	var out []legendEntry
	for _, k := range kinds {
		out = append(out, legendEntry{k, glyphThumb{styleOf(laneItem{Kind: k})}})
	}
	if effect {
		out = append(out, legendEntry{"triggered fault takes effect", glyphThumb{effectStyle}})
	}
	return out
}

var laneText = withAlign(textStyle(sans, ptSmall, inkText), draw.XLeft, draw.YCenter)

// placedItem is a marker at its x, in its row of the lane.
type placedItem struct {
	laneItem
	x   vg.Length
	row int
}

// placeLane puts each marker on the time axis of data, in the first row
// where it and its label clear the marker before; it returns the rows
// used. Markers off the axis are left out.
func (c *Chart) placeLane(data draw.Canvas) ([]placedItem, int) {
	p := c.Plot
	trX, _ := p.Transforms(&data)
	right := make([]vg.Length, laneRowMax)
	for i := range right {
		right[i] = vg.Length(math.Inf(-1))
	}
	var out []placedItem
	rows := 0
	for _, it := range c.lane {
		if it.X < p.X.Min || it.X > p.X.Max {
			continue
		}
		x := trX(it.X)
		row := 0
		for r := range right {
			if right[r] < x-glyphR-2 {
				row = r
				break
			}
			if right[r] < right[row] {
				row = r
			}
		}
		right[row] = x + glyphR + 2 + laneText.Width(it.Label)
		rows = max(rows, row+1)
		out = append(out, placedItem{it, x, row})
	}
	return out, rows
}

// laneHeight is the room the lane takes over the data.
func laneHeight(rows int) vg.Length {
	if rows == 0 {
		return 0
	}
	return vg.Length(laneGap + rows*laneRow)
}

// laneHit is where a marker shows its hover text, in the canvas's points:
// its glyph and label, and its line through the data.
type laneHit struct {
	class, kind, title string
	rs                 [2]vg.Rectangle
}

// drawLane draws the placed markers over data and returns where each can
// be hovered: its marker and label, and its line through the data.
func drawLane(dc draw.Canvas, data draw.Canvas, items []placedItem) []laneHit {
	y := func(row int) vg.Length { return data.Max.Y + laneGap + vg.Length(row)*laneRow + laneRow/2 }
	at := map[string]placedItem{}
	for _, it := range items {
		if it.key != "" {
			at[it.key] = it
		}
	}
	var hits []laneHit
	for _, it := range items {
		s, yy := styleOf(it.laneItem), y(it.row)
		line := draw.LineStyle{Color: withAlpha(rgb(s.color), 0.6), Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2)}}
		class := "event"
		if it.effect() {
			line, class = draw.LineStyle{Color: rgb(s.color), Width: vg.Points(1.3)}, "effect"
			if ev, ok := at[it.of]; ok {
				dc.StrokeLine2(draw.LineStyle{Color: rgb(s.color), Width: vg.Points(0.8)}, ev.x, y(ev.row), it.x, yy)
			}
		}
		dc.StrokeLine2(line, it.x, data.Min.Y, it.x, yy-glyphR)
		dc.DrawGlyphNoClip(s.glyph(), vg.Point{X: it.x, Y: yy})
		sty := laneText
		sty.Color = rgb(s.color)
		if !it.effect() {
			sty.Color = inkText
		}
		dc.FillText(sty, vg.Point{X: it.x + glyphR + 2, Y: yy}, it.Label)
		mark := vg.Rectangle{Min: vg.Point{X: it.x - glyphR - 1, Y: yy - laneRow/2}, Max: vg.Point{X: it.x + glyphR + 3 + laneText.Width(it.Label), Y: yy + laneRow/2}}
		col := vg.Rectangle{Min: vg.Point{X: it.x - 2, Y: data.Min.Y}, Max: vg.Point{X: it.x + 2, Y: yy - glyphR}}
		hits = append(hits, laneHit{class, it.Kind, it.Title, [2]vg.Rectangle{mark, col}})
	}
	return hits
}

// laneSVG is the hover areas as SVG over a chart h points tall: vgsvg's
// origin is at the bottom, the page's at the top.
func laneSVG(hits []laneHit, h vg.Length) string {
	var b strings.Builder
	for _, t := range hits {
		kind := ""
		if t.kind != "" {
			kind = fmt.Sprintf(` data-kind="%s"`, template.HTMLEscapeString(t.kind))
		}
		fmt.Fprintf(&b, `<g class="%s"%s><title>%s</title>`, t.class, kind, template.HTMLEscapeString(t.title))
		for _, r := range t.rs {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#000" fill-opacity="0"/>`,
				r.Min.X.Points(), (h - r.Max.Y).Points(), (r.Max.X - r.Min.X).Points(), (r.Max.Y - r.Min.Y).Points())
		}
		b.WriteString("</g>")
	}
	return b.String()
}
