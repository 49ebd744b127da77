package catchup

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
)

// Runs under a memory limit (testdata/slope_censored, README.md there): a
// peak the limit held down is fitted at the least its demand was, the
// limit, and a line is decided only when no demand it could have had
// changes the verdict. held_flat and oom_steep both passed as flat when
// their censored peaks were fitted as real ones.
func TestSlopeCensored(t *testing.T) {
	for _, tc := range []struct {
		run   string
		want  checker.Verdict
		words []string
		// censored is how many points are censored.
		censored int
	}{
		{"held_flat", checker.Unknown, []string{
			"0.10 bytes of RSS per byte over 4 backlogs",
			"the demands of v2.15.3_backlog-2147483648 (which held within 5% of its 1GiB limit), v2.15.3_backlog-4294967296 (which was OOM-killed once and held within 5% of its 1GiB limit) at their least, 1GiB, 1GiB",
			"undecided: flat at these demands, but it grows with the backlog if v2.15.3_backlog-2147483648's demand was above 4.58GiB or v2.15.3_backlog-4294967296's above 1.21GiB"}, 2},
		{"oom_steep", checker.Invalid, []string{"0.71 bytes of RSS per byte over 3 backlogs",
			"the demand of v2.15.3_backlog-2147483648 (which was OOM-killed once) at its least, 1.5GiB", "grows with the backlog"}, 1},
		{"limit_clean", checker.Valid, []string{"over 3 backlogs, flat"}, 0},
	} {
		t.Run(tc.run, func(t *testing.T) {
			dirs := must(filepath.Glob(filepath.Join("testdata/slope_censored", tc.run, "*")))
			res, err := workload{}.CheckRun(dirs)
			if err != nil || len(res) != 1 {
				t.Fatalf("%+v %v", res, err)
			}
			got := res[0]
			if got.Verdict != tc.want {
				t.Errorf("verdict %s, want %s: %s", got.Verdict, tc.want, got.Summary)
			}
			for _, w := range tc.words {
				if !strings.Contains(got.Summary, w) {
					t.Errorf("summary %q lacks %q", got.Summary, w)
				}
			}
			if got.Counts[CountSlopeCensored] != tc.censored {
				t.Errorf("%d censored, want %d", got.Counts[CountSlopeCensored], tc.censored)
			}
			if (got.Verdict == checker.Unknown) != (got.Reason != "") {
				t.Errorf("reason %q for %s", got.Reason, got.Verdict)
			}
		})
	}
}

// judgeLine's rules on lines made by hand (bound 0.15): a censored demand
// is a lower bound, which moves the slope up when its backlog is above
// the line's mean backlog and down when below.
func TestJudgeLine(t *testing.T) {
	const gib = 1 << 30
	pt := func(backlog, demand int64, censored bool) SlopeCell {
		p := SlopeCell{Cell: bytesize.Bytes(backlog).String(), Asked: backlog, Backlog: backlog, Demand: demand}
		if censored {
			p.Censored = "was OOM-killed once"
		}
		return p
	}
	flat := func(c1, c4 bool) []SlopeCell {
		return []SlopeCell{pt(gib, gib/2, c1), pt(2*gib, gib/2, false), pt(4*gib, gib/2, c4)}
	}
	steep := func(c1, c4 bool) []SlopeCell {
		return []SlopeCell{pt(gib, gib/2, c1), pt(2*gib, gib, false), pt(4*gib, 2*gib, c4)}
	}
	for _, tc := range []struct {
		name  string
		ps    []SlopeCell
		want  checker.Verdict
		words string
	}{
		{"flat, nothing censored", flat(false, false), checker.Valid, "0.00 bytes of RSS per byte over 3 backlogs, flat"},
		{"steep, nothing censored", steep(false, false), checker.Invalid, "0.50 bytes of RSS per byte over 3 backlogs, grows with the backlog"},
		// More demand at the large backlog steepens a flat line: the false
		// valid of a line fitted through censored peaks. By hand: mean 7/3
		// GiB, sum of squares 42/9 GiB^2, so 4 GiB's demand crosses 0.15 at
		// 0.5 + 0.15*(42/9)/(5/3) = 0.92 GiB.
		{"flat, the largest backlog censored", flat(false, true), checker.Unknown,
			"the demand of 4GiB (which was OOM-killed once) at its least, 512MiB, undecided: flat at these demands, but it grows with the backlog if 4GiB's demand was above 942.08MiB"},
		// More demand at the small backlog only flattens a flat line.
		{"flat, the smallest backlog censored", flat(true, false), checker.Valid, "at its least, 512MiB, flat"},
		// More demand at the large backlog only steepens a steep line.
		{"steep, the largest backlog censored", steep(false, true), checker.Invalid, "at its least, 2GiB, grows with the backlog"},
		// More demand at the small backlog could flatten it: at
		// 0.5 + (0.15-0.5)*(42/9)/(-4/3) = 1.725 GiB.
		{"steep, the smallest backlog censored", steep(true, false), checker.Unknown,
			"undecided: it grows with the backlog at these demands, but is flat if 1GiB's demand was above 1.72GiB"},
		// A point at the mean backlog does not move the slope.
		{"steep, the mean backlog censored", []SlopeCell{pt(gib, gib/2, false), pt(2*gib, gib, true), pt(3*gib, 2*gib, false)}, checker.Invalid, "grows with the backlog"},
		{"flat, the mean backlog censored", []SlopeCell{pt(gib, gib/2, false), pt(2*gib, gib/2, true), pt(3*gib, gib/2, false)}, checker.Valid, "flat"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := SlopeLine{ServerVersion: "v", Points: tc.ps, Backlogs: 3, Fitted: true}
			l.Slope, l.Intercept = fitLine(l.Points)
			v, words := judgeLine(l, DefaultMaxSlope)
			if v != tc.want || !strings.Contains(words, tc.words) {
				t.Fatalf("%s: %s, want %s: ...%s", v, words, tc.want, tc.words)
			}
			// Each swing's crossing is where the verdict turns: the cell's
			// demand a little above it gives the other verdict.
			for _, s := range swings(l, DefaultMaxSlope, l.Slope > DefaultMaxSlope) {
				moved := l
				moved.Points = append([]SlopeCell(nil), l.Points...)
				for i := range moved.Points {
					if moved.Points[i].Cell == s.cell.Cell {
						moved.Points[i].Demand = int64(s.cross) + 1<<20
					}
				}
				slope, _ := fitLine(moved.Points)
				if (slope > DefaultMaxSlope) == (l.Slope > DefaultMaxSlope) {
					t.Errorf("%s at %s: slope %.3f, on the same side as %.3f", s.cell.Cell, bytesize.Bytes(int64(s.cross)), slope, l.Slope)
				}
			}
		})
	}
	// A line left with one backlog has no slope, and says so.
	l := SlopeLine{ServerVersion: "v", Points: []SlopeCell{pt(gib, gib, false)}, Backlogs: 2,
		LeftOut: []LeftOutCell{{"b", "the target never restarted, so no catch-up was measured"}}}
	if v, words := judgeLine(l, DefaultMaxSlope); v != checker.Unknown || !strings.Contains(words, "no slope: its points hold 1 of its 2 --backlog settings (left out: b (the target never restarted") {
		t.Errorf("one backlog left: %s: %s", v, words)
	}
}

// Cells that give no point are named, with why (testdata/slope_left_out);
// a line they leave with one backlog is unknown, and so is a run whose
// unreadable cells may hold the backlogs the rest lack. A run of one
// --backlog in all gives no result (TestSlopeOneBacklog).
func TestSlopeLeftOut(t *testing.T) {
	dir := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join("testdata/slope_left_out", n))
		}
		return out
	}
	const (
		b512, b1g, b2g, b4g   = "v2.11.8_backlog-536870912", "v2.11.8_backlog-1073741824", "v2.11.8_backlog-2147483648", "v2.11.8_backlog-4294967296"
		noBacklog, unreadable = "v2.11.8_no_backlog", "v2.11.8_unreadable"
	)
	for _, tc := range []struct {
		name    string
		cells   []string
		want    checker.Verdict
		leftOut int
		words   []string
	}{
		{"all", dir(b512, b1g, b2g, b4g, noBacklog, unreadable), checker.Valid, 4, []string{
			"0.02 bytes of RSS per byte over 2 backlogs, flat (left out: " + b2g + " (the target never restarted, so no catch-up was measured); " +
				b4g + " (n3 sent no RSS sample from its restart to the heal))",
			"left out, their release and backlog unknown: " + noBacklog + " (catchup.json records no --backlog); " + unreadable + " (cannot be read: ",
			"v2.11.8_unreadable/catchup.json: unexpected end of JSON input)"}},
		{"one backlog left of two", dir(b512, b2g), checker.Unknown, 1, []string{
			"v2.11.8 (Direct Get off): no slope: its points hold 1 of its 2 --backlog settings (left out: " + b2g + " (the target never restarted"}},
		{"one backlog read, the other cell unreadable", dir(b512, unreadable), checker.Unknown, 1, []string{
			"no line of two --backlog settings is left to fit; left out, their release and backlog unknown: " + unreadable}},
		{"one backlog read, the other cell without one", dir(b512, noBacklog), checker.Unknown, 1, []string{
			"no line of two --backlog settings is left to fit; left out, their release and backlog unknown: " + noBacklog + " (catchup.json records no --backlog)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := workload{}.CheckRun(tc.cells)
			if err != nil || len(res) != 1 {
				t.Fatalf("%+v %v", res, err)
			}
			got := res[0]
			if got.Verdict != tc.want || got.Counts[CountSlopeLeftOut] != tc.leftOut {
				t.Errorf("%s with %d left out, want %s with %d: %s", got.Verdict, got.Counts[CountSlopeLeftOut], tc.want, tc.leftOut, got.Summary)
			}
			for _, w := range tc.words {
				if !strings.Contains(got.Summary, w) {
					t.Errorf("summary %q lacks %q", got.Summary, w)
				}
			}
		})
	}
}
