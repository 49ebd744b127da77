package catchup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// The measured peaks against backlog (testdata/slope, trimmed from one
// sweep on Docker, no limit, GOMEMLIMIT unset): v2.15.3 grows with the
// backlog, v2.11.8 stays flat, v2.10.7 grows too (the report's release).
func TestSlopeFixtures(t *testing.T) {
	for _, tc := range []struct {
		glob string
		want checker.Verdict
	}{
		{"v2.15.3_*", checker.Invalid},
		{"v2.11.8_*", checker.Valid},
		{"v2.10.7_*", checker.Invalid},
		{"v2.1[15]*", checker.Invalid}, // two lines, one steep: the run is invalid
	} {
		t.Run(tc.glob, func(t *testing.T) {
			dirs, _ := filepath.Glob(filepath.Join("testdata/slope", tc.glob))
			res, err := workload{}.CheckRun(dirs)
			if err != nil || len(res) != 1 {
				t.Fatalf("%v %+v", err, res)
			}
			if res[0].Verdict != tc.want {
				t.Errorf("verdict %s, want %s: %s", res[0].Verdict, tc.want, res[0].Summary)
			}
		})
	}
	dirs, _ := filepath.Glob("testdata/slope/*")
	fit := SlopeLines(dirs)
	lines := fit.Lines
	if len(lines) != 3 || fit.Bound != DefaultMaxSlope || len(fit.LeftOut) != 0 {
		t.Fatalf("%d lines, bound %g, left out %+v", len(lines), fit.Bound, fit.LeftOut)
	}
	for _, l := range lines {
		t.Logf("%s: slope %.3f over %d points", l.ServerVersion, l.Slope, len(l.Points))
	}
	if s := lines[2].Slope; lines[2].ServerVersion != "v2.15.3" || s < 0.4 || s > 0.7 {
		t.Errorf("v2.15.3 slope %.3f, measured 0.55", s)
	}
}

func TestSlopeRules(t *testing.T) {
	p := func(b, r int64) SlopeCell { return SlopeCell{Backlog: b, Demand: r} }
	for _, tc := range []struct {
		name  string
		ps    []SlopeCell
		slope float64
	}{
		{"flat", []SlopeCell{p(1, 5), p(2, 5), p(3, 5)}, 0},
		{"one to one", []SlopeCell{p(1, 1), p(2, 2), p(4, 4)}, 1},
		{"one backlog twice", []SlopeCell{p(2, 1), p(2, 3)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if s, _ := fitLine(tc.ps); s != tc.slope {
				t.Errorf("slope %g, want %g", s, tc.slope)
			}
		})
	}
	// One backlog only: nothing to fit, no result (not a pass).
	dirs, _ := filepath.Glob("testdata/slope/v2.15.3_backlog-536870912")
	if res, err := (workload{}).CheckRun(dirs); err != nil || len(res) != 0 {
		t.Errorf("one cell: %+v %v", res, err)
	}
	// A bound the run gives is used: v2.11.8's 0.09 is steep under 0.05.
	var strict []string
	for _, d := range must(filepath.Glob("testdata/slope/v2.11.8_*")) {
		r, err := Load(d)
		if err != nil {
			t.Fatal(err)
		}
		r.Options.MaxMemorySlope = 0.05
		out := filepath.Join(t.TempDir(), filepath.Base(d))
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := Save(out, r); err != nil {
			t.Fatal(err)
		}
		strict = append(strict, out)
	}
	if res, _ := (workload{}).CheckRun(strict); len(res) != 1 || res[0].Verdict != checker.Invalid || !strings.Contains(res[0].Summary, "bound 0.05") {
		t.Errorf("--max-memory-slope 0.05: %+v", res)
	}
}

// Backlogs are told apart by the --backlog setting, not by the bytes
// measured at the restart: two runs of 2 GiB (testdata/slope_one_backlog,
// 4 MiB apart in the stream, 40 MiB in peak RSS) have no slope, as one
// cell has none, and beside a cell of another backlog they are one x of a
// line that stays flat.
func TestSlopeOneBacklog(t *testing.T) {
	runs := must(filepath.Glob("testdata/slope_one_backlog/*"))
	if len(runs) != 2 {
		t.Fatalf("%d runs in testdata/slope_one_backlog", len(runs))
	}
	if res, err := (workload{}).CheckRun(runs); err != nil || len(res) != 0 {
		t.Errorf("two runs of one backlog: %+v %v", res, err)
	}
	if fit := SlopeLines(runs); len(fit.Lines) != 0 || len(fit.LeftOut) != 0 {
		t.Errorf("two runs of one backlog fitted %+v", fit)
	}
	withOther := append([]string{"testdata/slope/v2.11.8_backlog-4294967296"}, runs...)
	res, err := workload{}.CheckRun(withOther)
	if err != nil || len(res) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if res[0].Verdict != checker.Valid || !strings.Contains(res[0].Summary, "over 2 backlogs (3 cells)") {
		t.Errorf("2 GiB twice and 4 GiB: %s: %s", res[0].Verdict, res[0].Summary)
	}
}

// A cell whose target sent no memory sample has no peak, and no point:
// as 0 B it would tilt the line (here the 512 MiB cell of v2.11.8).
func TestSlopeLeavesOutSilentTargets(t *testing.T) {
	var dirs []string
	for _, d := range must(filepath.Glob("testdata/slope/v2.11.8_*")) {
		r, err := Load(d)
		if err != nil {
			t.Fatal(err)
		}
		if r.Options.Backlog == 512<<20 {
			r.Memory[0].PeakRSS, r.Memory[0].PeakRSSAt, r.CatchUp.PeakRSSDuring = 0, -1, 0
		}
		out := filepath.Join(t.TempDir(), filepath.Base(d))
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := Save(out, r); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, out)
	}
	res, err := workload{}.CheckRun(dirs)
	if err != nil || len(res) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if !strings.Contains(res[0].Summary, "over 3 backlogs,") {
		t.Errorf("the silent cell was fitted: %s: %s", res[0].Verdict, res[0].Summary)
	}
	if !strings.Contains(res[0].Summary, "left out: v2.11.8_backlog-536870912 (n3 sent no RSS sample from its restart to the heal)") {
		t.Errorf("the silent cell is not named: %s", res[0].Summary)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
