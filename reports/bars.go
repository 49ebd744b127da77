package reports

import (
	"html/template"
	"math"
)

// BarChart draws categories along x with one bar per series in each: the
// staleness distribution of every cell side by side.
type BarChart struct {
	Title      string
	XLabel     string
	YLabel     string
	Categories []string
	Series     []Stack
	Empty      string
	W, H       int
}

// SVG renders the bar chart.
func (c *BarChart) SVG() template.HTML {
	var b svgBuf
	chartW, chartH := dims(c.W, c.H)
	b.f(`<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">`, chartW, chartH, esc(c.Title))
	b.f(`<title>%s</title>`, esc(c.Title))
	b.f(`<text x="%g" y="16" font-size="13" font-weight="600" fill="#222">%s</text>`, padL, esc(c.Title))
	hi := 0.0
	for _, s := range c.Series {
		for _, v := range s.Values {
			hi = math.Max(hi, v)
		}
	}
	if c.Empty != "" || len(c.Categories) == 0 || len(c.Series) == 0 {
		msg := c.Empty
		if msg == "" {
			msg = "no data"
		}
		b.f(`<text x="%d" y="%d" text-anchor="middle" font-size="13" fill="#777">%s</text></svg>`, chartW/2, chartH/2, esc(msg))
		return template.HTML(b.String())
	}
	pw, ph := float64(chartW)-padL-padR, float64(chartH)-padT-padB
	ticks := niceTicks(0, math.Max(hi*1.05, 1), 5)
	ymax := math.Max(ticks[len(ticks)-1], hi*1.05)
	if ymax <= 0 {
		ymax = 1
	}
	sy := func(y float64) float64 { return padT + ph - y/ymax*ph }
	for _, t := range ticks {
		y := sy(t)
		b.f(`<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="#e4e4e4"/>`, padL, padL+pw, y, y)
		b.f(`<text x="%g" y="%.1f" text-anchor="end" font-size="11" fill="#555">%s</text>`, padL-5, y+4, fmtCount(t))
	}
	b.f(`<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="#999"/>`, padL, padL+pw, padT+ph, padT+ph)
	slot := pw / float64(len(c.Categories))
	bw := math.Max(1, (slot*0.8)/float64(len(c.Series)))
	for i, cat := range c.Categories {
		x0 := padL + float64(i)*slot + slot*0.1
		for j, s := range c.Series {
			v := 0.0
			if i < len(s.Values) {
				v = s.Values[i]
			}
			x := x0 + float64(j)*bw
			h := ph - (sy(v) - padT)
			if v > 0 && h < 1 {
				h = 1
			}
			b.f(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s: %s</title></rect>`, x, padT+ph-h, math.Max(0.5, bw-1), h, s.Color, esc(s.Name), esc(cat), fmtCount(v))
			if v > 0 {
				// The count over its bar: small bars next to a tall one stay readable.
				b.f(`<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10" fill="#333">%s</text>`, x+bw/2, padT+ph-h-3, fmtCount(v))
			}
		}
		b.f(`<text x="%.1f" y="%g" text-anchor="middle" font-size="10" fill="#555">%s</text>`, padL+float64(i)*slot+slot/2, padT+ph+14, esc(cat))
	}
	if c.XLabel != "" {
		b.f(`<text x="%g" y="%d" text-anchor="end" font-size="11" fill="#555">%s</text>`, padL+pw, chartH-3, esc(c.XLabel))
	}
	b.f(`<text transform="translate(13 %g) rotate(-90)" text-anchor="middle" font-size="11" fill="#555">%s</text>`, padT+ph/2, esc(c.YLabel))
	items := make([]legendItem, len(c.Series))
	for i, s := range c.Series {
		items[i] = legendItem{s.Name, s.Color, false, true}
	}
	b.legend(items, padL+pw)
	b.f(`</svg>`)
	return template.HTML(b.String())
}
