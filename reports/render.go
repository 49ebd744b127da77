package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"regexp"
	"strings"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// How a Chart becomes inline SVG: the title and legend laid out over the
// data area, gonum's drawing, and vgsvg's output trimmed.

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
	// lane holds the markers of a watched cell's events over the data,
	// in laneRows rows.
	lane     []placedItem
	laneRows int
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
	if len(c.lane) > 0 {
		l.lane, l.laneRows = c.placeLane(c.Plot.DataCanvas(l.area))
		entries = append(entries, laneLegend(l.lane)...)
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
	top += laneHeight(l.laneRows)
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
		// More legend rows, or the lane, make the chart taller, not its
		// data flatter.
		if grow := max(l.rows-1, 0)*legendRow + int(laneHeight(l.laneRows)); grow > 0 {
			h += grow
			l = c.layout(vg.Points(float64(w)), vg.Points(float64(h)))
		}
	}
	cv := vgsvg.New(vg.Points(float64(w)), vg.Points(float64(h)))
	dc := draw.New(cv)
	var hits []laneHit
	if empty {
		dc.FillText(titleStyle, vg.Point{X: pad, Y: dc.Max.Y - pad}, c.Title)
		msg := withAlign(textStyle(sans, ptTitle, rgb(ColGrey)), draw.XCenter, draw.YCenter)
		dc.FillText(msg, dc.Center(), orDefault(c.Empty, "no data"))
	} else {
		hits = c.draw(dc, l)
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
	body = trimSVG(strings.TrimSpace(body))
	if len(hits) > 0 {
		body = strings.TrimSuffix(body, "</svg>") + laneSVG(hits, vg.Points(float64(h))) + "</svg>"
	}
	b.WriteString(body)
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

// draw draws the chart, and returns the lane's hover areas.
func (c *Chart) draw(dc draw.Canvas, l layout) []laneHit {
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
	if len(l.lane) == 0 {
		return nil
	}
	return drawLane(dc, data, l.lane)
}
