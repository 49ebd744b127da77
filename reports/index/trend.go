package index

import (
	"cmp"
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strings"
	"time"
)

// Series is one cell's failure rate over the store's runs: a line of the
// trend chart.
type Series struct {
	Key    CellKey
	Points []Point // by date, then run id
}

// Point is one run of a series' cell.
type Point struct {
	Date  time.Time
	RunID string
	Tally Tally
}

// Trend gathers the rows' cells into series, one per cell key, ordered by
// label. A run whose cell decided nothing (every repeat unknown or an
// error) adds no point: its rate of 0 would read as a pass. Rows without
// a date cannot be placed and add none either.
func Trend(rows []Row) []Series {
	at := map[CellKey]int{}
	var out []Series
	for _, r := range rows {
		if r.Date.IsZero() {
			continue
		}
		for _, t := range r.Cells {
			if t.Decided == 0 {
				continue
			}
			i, ok := at[t.Key]
			if !ok {
				i, at[t.Key] = len(out), len(out)
				out = append(out, Series{Key: t.Key})
			}
			out[i].Points = append(out[i].Points, Point{Date: r.Date, RunID: r.ID, Tally: t})
		}
	}
	for _, s := range out {
		slices.SortFunc(s.Points, func(a, b Point) int {
			return cmp.Or(a.Date.Compare(b.Date), cmp.Compare(a.RunID, b.RunID))
		})
	}
	slices.SortFunc(out, func(a, b Series) int { return cmp.Compare(a.Key.Label(), b.Key.Label()) })
	return out
}

// The colours are report.html's (reports.SeriesColor: Okabe-Ito, colour-
// blind safe); past them, lines are dashed.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#777777"}

// Color is the i-th series' colour, and whether its line is dashed.
func Color(i int) (string, bool) { return palette[i%len(palette)], i >= len(palette) }

// The chart's size in CSS px (its view box) and its margins.
const (
	chartW, chartH = 960, 320
	padL, padR     = 56, 48
	padT, padB     = 16, 40
)

// Chart draws the series as an inline SVG: x the run's date, y the
// failure rate, a dot per run (its hover text the run and counts). Each
// line is a <g class="series"> carrying the data-workload, data-release
// and data-fault values the page's filters hide it by.
func Chart(series []Series) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart trend" viewBox="0 0 %d %d" role="img" aria-label="failure rate per cell over time">`, chartW, chartH)
	b.WriteString(`<title>Failure rate per cell over time</title>`)
	lo, hi := timeRange(series)
	x := func(t time.Time) float64 {
		return padL + float64(t.Sub(lo))/float64(hi.Sub(lo))*(chartW-padL-padR)
	}
	y := func(rate float64) float64 { return padT + (1-rate)*(chartH-padT-padB) }
	for _, p := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text class="tick" x="%d" y="%.1f" text-anchor="end">%.0f %%</text>`,
			padL, chartW-padR, y(p), y(p), padL-6, y(p)+4, p*100)
	}
	for _, t := range timeTicks(lo, hi) {
		fmt.Fprintf(&b, `<line class="axis" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/><text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			x(t), x(t), chartH-padB, chartH-padB+5, x(t), chartH-padB+20, tickLabel(t, hi.Sub(lo)))
	}
	fmt.Fprintf(&b, `<line class="axis" x1="%d" x2="%d" y1="%d" y2="%d"/>`, padL, chartW-padR, chartH-padB, chartH-padB)
	for i, s := range series {
		col, dashed := Color(i)
		dash := ""
		if dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<g class="series" data-filterable data-workload="%s" data-release="%s" data-fault="%s" stroke="%s" fill="%s">`,
			attrList(s.Key.Workload), attrList(s.Key.Release), attrList(s.Key.Fault), col, col)
		var pts []string
		for _, p := range s.Points {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.Date), y(p.Tally.Rate())))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke-width="2"%s points="%s"/>`, dash, strings.Join(pts, " "))
		for _, p := range s.Points {
			fmt.Fprintf(&b, `<circle r="4" cx="%.1f" cy="%.1f"><title>%s</title></circle>`,
				x(p.Date), y(p.Tally.Rate()), html.EscapeString(pointTitle(s.Key, p)))
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // every text in it went through html.EscapeString or attrList
}

// attrList is a one-value JSON list for a data attribute (the filters
// read every data attribute as a list), escaped for HTML.
func attrList(v string) string {
	return html.EscapeString(fmt.Sprintf("[%q]", v))
}

func pointTitle(k CellKey, p Point) string {
	return fmt.Sprintf("%s\nrun %s, %s: %d of %d runs found an anomaly (%.0f %%)",
		k.Label(), p.RunID, p.Date.Format("2006-01-02 15:04"), p.Tally.Failed, p.Tally.Runs, 100*p.Tally.Rate())
}

// timeRange spans the points, widened to an hour either side of a single
// instant so that it has a width.
func timeRange(series []Series) (lo, hi time.Time) {
	for _, s := range series {
		for _, p := range s.Points {
			if lo.IsZero() || p.Date.Before(lo) {
				lo = p.Date
			}
			if p.Date.After(hi) {
				hi = p.Date
			}
		}
	}
	if !hi.After(lo) {
		lo, hi = lo.Add(-time.Hour), hi.Add(time.Hour)
	}
	return lo, hi
}

// timeTicks are the midnights from lo to hi, every day or every few so
// that at most seven are drawn, once the span is two days or more (nightly
// runs); else six instants evenly spaced.
func timeTicks(lo, hi time.Time) []time.Time {
	const day = 24 * time.Hour
	var out []time.Time
	if span := hi.Sub(lo); span >= 2*day {
		step := (span/day + 6) / 7 * day
		first := lo.Truncate(day)
		if first.Before(lo) {
			first = first.Add(day)
		}
		for t := first; !t.After(hi); t = t.Add(step) {
			out = append(out, t)
		}
		return out
	}
	for i := 0; i <= 5; i++ {
		out = append(out, lo.Add(time.Duration(i)*hi.Sub(lo)/5))
	}
	return out
}

// tickLabel says a tick's date, or its time when the span is under two
// days.
func tickLabel(t time.Time, span time.Duration) string {
	switch {
	case span >= 48*time.Hour:
		return t.Format("2006-01-02")
	case span > 5*time.Hour:
		return t.Format("01-02 15:04")
	}
	return t.Format("15:04:05")
}

// percent says a rate as the table does.
func percent(r float64) string { return fmt.Sprintf("%.0f %%", math.Round(r*100)) }
