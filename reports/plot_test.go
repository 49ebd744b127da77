package reports

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

func TestTimeChartSVG(t *testing.T) {
	c := NewTimeChart("t <&>", "latency (log scale)", 10, []Band{{From: 2, To: 4, Label: "kill n1"}})
	c.YLog = true
	c.Plot.Y.Tick.Marker = MsLogTicks
	// NaN and zero (on a log scale) break the line: three pieces; 11 is past the axis.
	c.Line("l", plotter.XYs{{X: 1, Y: 1}, {X: 1.5, Y: 2}, {X: 2, Y: math.NaN()}, {X: 3, Y: 10}, {X: 3.5, Y: 20},
		{X: 4, Y: 0}, {X: 5, Y: 100}, {X: 6, Y: 50}, {X: 11, Y: 5000}}, LineStyle(ColBlue, 1.6, false))
	c.Marks([]Mark{{X: 9, Label: "end"}})
	svg := string(c.HTML())
	if !strings.HasPrefix(svg, `<svg class="chart" viewBox="0 0 760 260" role="img" aria-label="t &lt;&amp;&gt;"><title>`) {
		t.Errorf("svg starts %.120q", svg)
	}
	if strings.Contains(svg, "t <&>") || strings.Contains(svg, "<?xml") || strings.Contains(svg, "http") || strings.Contains(svg, "url(") {
		t.Error("title not escaped, or the standalone header or an external reference left in")
	}
	// Three pieces of line and the legend's sample.
	if n := strings.Count(svg, "stroke:#0072B2"); n != 4 {
		t.Errorf("%d strokes in the line's colour, want 3 pieces and a legend sample", n)
	}
	for _, w := range []string{">kill n1<", ">end<", ">l<", ">fault window<", ">1.0 ms<", ">100 ms<", ">seconds since start<", ">latency (log scale)<"} {
		if !strings.Contains(svg, w) {
			t.Errorf("svg lacks %q", w)
		}
	}
	if strings.Contains(svg, ">1.00 s<") {
		t.Error("the point past the end of the axis stretched the y axis")
	}
	// Coordinates are trimmed to a tenth of a point.
	if m := regexp.MustCompile(` (?:d|x|y)="[^"]*\.\d\d`).FindString(svg); m != "" {
		t.Errorf("untrimmed coordinate %q", m)
	}
	empty := string((&Chart{Title: "x", Empty: "nothing here"}).HTML())
	if !strings.Contains(empty, ">nothing here<") {
		t.Error("empty chart lacks its message")
	}
}

func TestStackedBars(t *testing.T) {
	c := NewTimeChart("errors", "errors per 10 ms", 0.03, nil)
	c.stackedBars([]float64{0, 0.01, 0.02, 0.03}, 0.01, []stack{
		{name: "a: 3", color: ColRed, values: []float64{1, 0, 2, 9}},
		{name: "b: 2", color: ColSky, values: []float64{1, 1, 0, 9}},
	})
	lo, hi := c.yRange()
	if lo != 0 || hi != 2 {
		t.Errorf("y range %g..%g, want 0..2 (the stack past the axis left out)", lo, hi)
	}
	svg := string(c.HTML())
	// a: two bars and the legend sample; b on top of every bar with errors.
	if a, b := strings.Count(svg, "fill:#D55E00"), strings.Count(svg, "fill:#56B4E9"); a != 3 || b != 4 {
		t.Errorf("%d bars of a and %d of b, with the legend's samples; want 3 and 4", a, b)
	}
	if strings.Contains(svg, ">0.5<") || !strings.Contains(svg, ">2<") {
		t.Error("a count axis labelled with fractions")
	}
}

func TestTickers(t *testing.T) {
	lab := func(f func(lo, hi float64) []string, lo, hi float64) string { return strings.Join(f(lo, hi), " ") }
	count := func(lo, hi float64) []string {
		var out []string
		for _, tk := range countTicks.Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	bytes := func(lo, hi float64) []string {
		var out []string
		for _, tk := range ByteTicks.Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	secs := func(lo, hi float64) []string {
		var out []string
		for _, tk := range secondTicks.Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, tt := range []struct {
		got, want string
	}{
		{lab(count, 0, 5.25), "0 1 2 3 4 5"},
		{lab(count, 0, 1.05), "0 1"},
		{lab(count, 0, 1680), "0 800 1,600"},
		{lab(bytes, 0, 650<<20), "0 B 300 MiB 600 MiB"},
		{lab(bytes, 0, 1100<<20), "0 B 500 MiB 1,000 MiB"},
		{lab(secs, 0, 27.5), "0 5 10 15 20 25"},
		{lab(secs, 0, 30), "0 5 10 15 20 25 30"},
		{lab(secs, 0, 260), "0 60 120 180 240"},
		{lab(secs, 0, 7), "0 1 2 3 4 5 6 7"},
	} {
		if tt.got != tt.want {
			t.Errorf("ticks %q, want %q", tt.got, tt.want)
		}
	}
}
