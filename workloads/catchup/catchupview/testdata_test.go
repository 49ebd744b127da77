package catchupview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// Catch-up test runs: real `chaos run --workload catchup` runs, trimmed
// (see TestMakeCatchupTestdata and testdata/README.md), one archive each,
// the run in a folder of the archive's name.
const (
	catchupLimitRun = "catchup"      // 2 versions x Direct Get under 160 MiB: one OOM kill after the catch-up
	catchupLoopRun  = "catchup-loop" // one cell under 80 MiB without GOMEMLIMIT: OOM kills, a crash loop, not caught up
)

// unpackCatchup extracts testdata/<name>.tar.gz into a fresh folder and
// returns the run folder.
func unpackCatchup(t testing.TB, name string) string {
	t.Helper()
	return reportstest.UnpackRun(t, filepath.Join("testdata", name+".tar.gz"))
}

// TestMakeCatchupTestdata trims a stored catch-up run into
// testdata/<name>.tar.gz. It runs only when asked:
//
//	CHAOS_TESTDATA_CATCHUP=store/<run-id> CHAOS_TESTDATA_NAME=catchup go test ./workloads/catchup/catchupview -run TestMakeCatchupTestdata
//
// Every number the report shows comes from results.json, catchup.json and
// the nodes' readings (nodes.jsonl), which keep their verdicts, checks,
// phases, events, stream readings and per-second publish figures as
// measured. What is trimmed: the memory readings keep every other one (and
// each node's peak and last, and the readings around a gap), the state
// and health readings each node's first and last and every change, and
// the node logs their first lines and the warnings, errors and lines of
// interest. publish.csv and the configs are copied. Store paths and the
// rerun command read as a run in the default store/. A run stored before
// the pipeline observed the nodes is refused: the archives made of such
// runs are here already.
func TestMakeCatchupTestdata(t *testing.T) {
	src, name := os.Getenv("CHAOS_TESTDATA_CATCHUP"), os.Getenv("CHAOS_TESTDATA_NAME")
	if src == "" || name == "" {
		t.Skip("set CHAOS_TESTDATA_CATCHUP=store/<run-id> and CHAOS_TESTDATA_NAME=catchup to rebuild testdata/<name>.tar.gz")
	}
	root := t.TempDir()
	dst := filepath.Join(root, name)
	var res record.Result
	b, err := os.ReadFile(filepath.Join(src, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Spec.Workload != "catchup" {
		t.Fatalf("%s is a %q run, not a catch-up run", src, res.Spec.Workload)
	}
	res.Dir, res.Spec.Store = "store/"+res.ID, "store"
	res.Command = storeFlag.ReplaceAllString(res.Command, "")
	res.Spec.Command = res.Command
	for i := range res.Cells {
		c := &res.Cells[i]
		c.Dir, c.Cluster.Dir = res.Dir+"/"+c.Name, res.Dir+"/"+c.Name
		from, to := filepath.Join(src, c.Name), filepath.Join(dst, c.Name)
		reportstest.WriteJSON(t, filepath.Join(to, "results.json"), c)
		reportstest.CopyDir(t, filepath.Join(from, "config"), filepath.Join(to, "config"))
		reportstest.CopyFile(t, filepath.Join(from, catchup.PublishFile), filepath.Join(to, catchup.PublishFile))
		m, err := readMeasured(from)
		if err != nil || m == nil {
			t.Fatalf("%s: no catchup.json (%v)", from, err)
		}
		if m.Observed == "" {
			t.Fatalf("%s was stored before the pipeline observed the nodes: its series are in catchup.json", from)
		}
		cu := m
		cu.Dir, cu.Cluster.Dir = to, to // stored as "." (catchup.Save writes them relative to the cell)
		if err := catchup.Save(to, *cu); err != nil {
			t.Fatal(err)
		}
		thinNodes(t, filepath.Join(from, observe.File), filepath.Join(to, observe.File))
		logs, _ := filepath.Glob(filepath.Join(from, "logs", "*.log"))
		for _, l := range logs {
			thinLog(t, l, filepath.Join(to, "logs", filepath.Base(l)))
		}
	}
	reportstest.WriteJSON(t, filepath.Join(dst, "results.json"), res)
	reportstest.WriteJSON(t, filepath.Join(dst, "run.json"), res.Spec)
	archive := filepath.Join("testdata", name+".tar.gz")
	if err := reportstest.PackDir(root, name, archive); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s rebuilt from %s: %s", archive, src, reports.Headline(res))
}

// thinNodes copies a nodes.jsonl keeping every line but some readings of
// memory, state and health: of each node's memory readings of a kind every
// other one, the peak, the last and those on either side of a gap (a node
// down); of its state and health readings the first, the last and every
// change. The stream and limit readings, and the start and stop lines,
// are all kept.
func thinNodes(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	samples := make([]observe.Sample, len(lines))
	type key struct {
		node string
		kind observe.Kind
	}
	idx := map[key][]int{}
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &samples[i]); err != nil {
			t.Fatalf("%s:%d: %v", from, i+1, err)
		}
		s := samples[i]
		idx[key{s.Node, s.Kind}] = append(idx[key{s.Node, s.Kind}], i)
	}
	keep := make([]bool, len(lines))
	for k, is := range idx {
		var peak int64
		for _, i := range is {
			peak = max(peak, samples[i].Bytes)
		}
		for j, i := range is {
			s, first, last := samples[i], j == 0, j == len(is)-1
			switch k.kind {
			case observe.KindUsage, observe.KindRSS:
				gap := (!first && s.T-samples[is[j-1]].T > 600e6) || (!last && samples[is[j+1]].T-s.T > 600e6)
				keep[i] = j%2 == 0 || last || s.Bytes == peak || gap
			case observe.KindState, observe.KindHealth:
				keep[i] = first || last || !sameReading(samples[is[j-1]], s)
			default:
				keep[i] = true
			}
		}
	}
	var out []string
	for i, l := range lines {
		if keep[i] {
			out = append(out, l)
		}
	}
	reportstest.WriteText(t, to, strings.Join(out, "\n")+"\n")
}

// sameReading says two readings of a node's state or health say the same.
func sameReading(a, b observe.Sample) bool {
	if a.Status != b.Status || a.Err != b.Err || (a.State == nil) != (b.State == nil) {
		return false
	}
	if a.State == nil {
		return true
	}
	x, y := *a.State, *b.State
	return x.Running == y.Running && x.Paused == y.Paused && x.OOMKills == y.OOMKills && x.Restarts == y.Restarts &&
		x.ExitCode == y.ExitCode && x.StartedAt.Equal(y.StartedAt)
}

// thinLog keeps a node log's first lines (the server's banner and
// settings) and its warnings, errors and catch-up lines.
func thinLog(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		keep := i < 12 || strings.Contains(l, "[WRN]") || strings.Contains(l, "[ERR]") || strings.Contains(l, "[FTL]") ||
			strings.Contains(l, "Catchup") || strings.Contains(l, "catchup") || strings.Contains(l, "Starting nats-server")
		if keep && len(out) < 200 {
			out = append(out, l)
		}
	}
	reportstest.WriteText(t, to, strings.Join(out, "\n")+"\n")
}

func TestCatchupTestdata(t *testing.T) {
	tests := []struct {
		name     string
		headline []string
		page     []string
		tests    int
		failures int
		errors   int
	}{
		{catchupLimitRun, []string{
			"v2.11.8, Direct Get on: n2 caught up 281 MiB in 4.3 s; peak 150 MiB RSS (0.53x the stream); OOM-killed once under its 160 MiB limit, 7.3 s after its restart; nothing lost.",
			"v2.11.8, Direct Get off: n2 caught up 281 MiB in 3.8 s, peak 108 MiB RSS (0.39x the stream) under its 160 MiB limit, no OOM kill, nothing lost.",
			"v2.15.3, Direct Get on: n3 caught up 281 MiB in 3.4 s, peak 133 MiB RSS (0.47x the stream) under its 160 MiB limit, no OOM kill, nothing lost.",
			"v2.15.3, Direct Get off: n3 caught up 281 MiB in 2.8 s, peak 126 MiB RSS (0.45x the stream) under its 160 MiB limit, no OOM kill, nothing lost.",
		}, []string{"NATS JetStream replica catch-up under a memory limit of 160 MiB", "no: OOM-killed once at its 160 MiB limit",
			"n2 once at 15.0 s", "no: 1 restart, below the threshold of 2", "160 MiB / 128 MiB (auto: 80 % of the limit)"}, 28, 1, 1},
		{catchupLoopRun, []string{
			"v2.15.3, Direct Get off: n1 OOM-killed 4 times (crash loop) under its 80 MiB limit, first 2.7 s after its restart; did not catch up (the wait stopped at the crash loop, 8.0 s after the restart); nothing lost.",
		}, []string{"80 MiB / unset", "5s / 16MB/s / until current", "not current after 8.0 s (crash loop)",
			"n1 4 times at 11.8 s, 14.0 s, 17.1 s, 19.3 s", "yes: n1 (4 restarts)", "115,869 acknowledged, 0 missing"}, 7, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := unpackCatchup(t, tt.name)
			r, err := reports.Write(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := reports.HeadlineParts(r.Result); strings.Join(got, "\n") != strings.Join(tt.headline, "\n") {
				t.Errorf("headline\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(tt.headline, "\n      "))
			}
			page := pageOf(t, dir)
			for _, w := range tt.page {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			var s jSuites
			readXMLFile(t, filepath.Join(dir, reports.JUnitFile), &s)
			if s.Tests != tt.tests || s.Failures != tt.failures || s.Errors != tt.errors {
				t.Errorf("junit: %d tests, %d failures, %d errors; want %d, %d, %d", s.Tests, s.Failures, s.Errors, tt.tests, tt.failures, tt.errors)
			}
		})
	}
}

var storeFlag = regexp.MustCompile(` --store=\S+`)
