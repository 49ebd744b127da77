package reports

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
)

var (
	laneRect = regexp.MustCompile(`<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="#000" fill-opacity="0"/>`)
	viewBox  = regexp.MustCompile(`viewBox="0 0 (\d+) (\d+)"`)
)

// laneCell is a watched cell: three events at one instant, a log line
// with markup in it, a triggered kill fired by the first event, and an
// event past the end of the axis.
func laneCell() *Cell {
	at := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	lc := watch.Event{Kind: watch.LeaderChange, At: at(5), Node: "n2", From: "n1", Source: "log", Line: "[INF] new stream leader for '$G > KV_chaos' <&>"}
	evs := []watch.Event{lc,
		{Kind: watch.CatchupStart, At: at(5), Node: "n3", Lag: 1200, Source: "poll"},
		{Kind: watch.Restart, At: at(5), Node: "n1", Source: "poll"},
		{Kind: watch.Log, At: at(8), Node: "n3", Pattern: "Catchup", Line: "[INF] Catchup for stream complete", Source: "log"},
		{Kind: watch.Snapshot, At: at(30), Node: "n2", Source: "poll"}}
	kill := nemesis.Window{Fault: "kill:new-leader@leader-change", Targets: []string{"n2"}, Start: at(5.001), End: at(7), Injected: true, Verified: true,
		Effect: at(5.012), Trigger: "leader-change", Event: &lc, Lag: map[string]uint64{"n1": 0, "n3": 1200}}
	return &Cell{CellResult: record.CellResult{Faults: []nemesis.Window{kill}, Watch: &record.WatchSummary{}}, Events: evs}
}

func TestLaneOnChart(t *testing.T) {
	lane := cellLane(laneCell())
	if len(lane) != 6 || laneEnd(lane) != 30 {
		t.Fatalf("lane %+v: want 5 events and 1 effect, the last at 30 s", lane)
	}
	c := NewTimeChart("t", "ops/s", 10, faultBands(laneCell().Faults))
	c.Line("l", nil, LineStyle(ColBlue, 1, false))
	c.lane = lane
	svg := string(c.HTML())

	// The event past the axis (10 s) is left out; the others each have
	// their hover text, the log line escaped.
	groups := eventGroup.FindAllStringSubmatch(svg, -1)
	var kinds []string
	for _, g := range groups {
		kinds = append(kinds, g[1])
	}
	if strings.Join(kinds, ",") != "leader-change,catchup-start,restart,log" {
		t.Errorf("event markers %v", kinds)
	}
	if !strings.Contains(svg, "seen by log\n[INF] new stream leader for &#39;$G &gt; KV_chaos&#39; &lt;&amp;&gt;</title>") {
		t.Error("the log line of the leader change is not in its hover text, escaped")
	}
	effects := effectGroup.FindAllStringSubmatch(svg, -1)
	if len(effects) != 1 || effects[0][1] != "kill:new-leader@leader-change n2: effect 12 ms after leader-change to n2 (from n1) at 5.000s, seen by log (effect at 5.012 s); lag then: n1 0, n3 1,200" {
		t.Errorf("effect markers %q", effects)
	}
	for _, w := range []string{">+12 ms<", ">n2<", ">n3<", ">lag n1 0, n3 1,200<", ">kill:new-leader@leader-change n2<",
		">leader-change<", ">catchup-start<", ">restart<", ">log<", ">triggered fault takes effect<"} {
		if !strings.Contains(svg, w) {
			t.Errorf("chart lacks %q", w)
		}
	}
	if strings.Contains(svg, ">snapshot<") {
		t.Error("the legend names a kind drawn nowhere on the chart")
	}
	// Three markers at 5 s take three rows, the effect overlaps one: the
	// chart is that much taller, its data as high as without the lane.
	vb := viewBox.FindStringSubmatch(svg)
	w, _ := strconv.ParseFloat(vb[1], 64)
	h, _ := strconv.ParseFloat(vb[2], 64)
	l := c.layout(vg.Points(w), vg.Points(h))
	if want := float64(defaultH + (l.rows-1)*legendRow + int(laneHeight(laneRowMax))); l.laneRows != laneRowMax || h != want {
		t.Errorf("chart %g points tall, want %g; %d rows of markers, want %d", h, want, l.laneRows, laneRowMax)
	}
	rects := laneRect.FindAllStringSubmatch(svg, -1)
	if len(rects) != 2*5 {
		t.Errorf("%d hover areas, want 2 for each of 5 markers", len(rects))
	}
	for _, r := range rects {
		x, _ := strconv.ParseFloat(r[1], 64)
		y, _ := strconv.ParseFloat(r[2], 64)
		rw, _ := strconv.ParseFloat(r[3], 64)
		rh, _ := strconv.ParseFloat(r[4], 64)
		if x < 0 || y < 0 || rw <= 0 || rh <= 0 || x+rw > w || y+rh > h {
			t.Errorf("hover area %s outside the %gx%g chart", r[0], w, h)
		}
	}
}

// A chart without a lane is drawn as it was.
func TestNoLaneNoChange(t *testing.T) {
	mk := func() *Chart {
		c := NewTimeChart("t", "ops/s", 10, []Band{{From: 2, To: 4, Label: "kill n1"}})
		c.Line("l", nil, LineStyle(ColBlue, 1, false))
		return c
	}
	with := mk()
	with.lane = []laneItem{}
	if a, b := string(mk().HTML()), string(with.HTML()); a != b || !strings.Contains(a, `viewBox="0 0 760 260"`) || strings.Contains(a, "<g class=") {
		t.Error("an empty lane changed the chart, or a chart without one has hover areas")
	}
}

// The label of a band that starts inside another goes under it; bands
// after one another keep the top line.
func TestBandLabelLines(t *testing.T) {
	placed := []placedLabel{{from: 3, to: 14, right: 300, lo: 0, hi: 1}}
	cases := []struct {
		name  string
		b     Band
		x     float64
		lines int
		want  int
	}{
		{"inside, crossing", Band{From: 3.1, To: 7}, 250, 1, 1},
		{"inside, clear of it", Band{From: 9, To: 10}, 320, 1, 0},
		{"after it", Band{From: 14, To: 16}, 290, 1, 0},
		{"before it", Band{From: 1, To: 3.5}, 100, 2, 0},
	}
	for _, tc := range cases {
		if got := labelLine(placed, tc.b, vg.Length(tc.x), tc.lines); got != tc.want {
			t.Errorf("%s: line %d, want %d", tc.name, got, tc.want)
		}
	}
	// Under a label of two lines that itself went under another.
	two := append(placed, placedLabel{from: 3.1, to: 7, right: 400, lo: 1, hi: 3})
	if got := labelLine(two, Band{From: 3.2, To: 4}, 260, 1); got != 3 {
		t.Errorf("third band inside both: line %d, want 3", got)
	}
}

// On a chart with a triggered fault, a label that would cross the label
// of a band it starts inside goes under it; on any other chart, labels
// stay on the top line as they were.
func TestBandLabelsStack(t *testing.T) {
	textY := regexp.MustCompile(`<text x="[\d.]+" y="(-?[\d.]+)"[^>]*>([^<]*)</text>`)
	for _, triggered := range []bool{false, true} {
		bands := []Band{{From: 1, To: 9, Label: "stepdown n1"}, {From: 1.05, To: 4, Label: "kill:new-leader@leader-change n3", Sub: "lag n1 0", triggered: triggered}}
		c := NewTimeChart("t", "ops/s", 10, bands)
		c.Line("l", nil, LineStyle(ColBlue, 1, false))
		ys := map[string]string{}
		for _, m := range textY.FindAllStringSubmatch(string(c.HTML()), -1) {
			ys[m[2]] = m[1]
		}
		a, b, sub := ys["stepdown n1"], ys["kill:new-leader@leader-change n3"], ys["lag n1 0"]
		if a == "" || b == "" || sub == "" || (a == b) == triggered || sub == b {
			t.Errorf("triggered %v: labels at y %q, %q, the lag under it at %q", triggered, a, b, sub)
		}
	}
}
