package catchupview

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
// Every number the report shows comes from results.json and catchup.json,
// which keep their verdicts, checks, peaks, events, lag and publish
// series as measured. What is trimmed: the memory series keep every
// other sample (and every peak, and the samples around a gap), the
// health samples keep the first and last of each node and every change,
// states.jsonl keeps each node's first sample and every change, and the
// node logs keep their first lines and the warnings, errors and lines of
// interest. memory.csv and health.jsonl are written again from the
// trimmed series; lag.csv, publish.csv, events.jsonl and the configs are
// copied. Store paths and the rerun command read as a run in the default
// store/.
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
		for _, f := range []string{catchup.LagFile, catchup.PublishFile, catchup.EventsFile} {
			reportstest.CopyFile(t, filepath.Join(from, f), filepath.Join(to, f))
		}
		m, err := readMeasured(from)
		if err != nil || m == nil {
			t.Fatalf("%s: no catchup.json (%v)", from, err)
		}
		cu := &m.Result
		cu.Dir, cu.Cluster.Dir = to, to // stored as "." (catchup.Save writes them relative to the cell)
		for j := range cu.Memory {
			m := &cu.Memory[j]
			m.Usage, m.RSS = thinSeries(m.Usage), thinSeries(m.RSS)
		}
		cu.Health = thinHealth(cu.Health)
		if err := catchup.Save(to, *cu); err != nil {
			t.Fatal(err)
		}
		var mem strings.Builder
		if err := catchup.WriteMemoryCSV(&mem, cu.Memory); err != nil {
			t.Fatal(err)
		}
		reportstest.WriteText(t, filepath.Join(to, catchup.MemoryFile), mem.String())
		reportstest.WriteJSONLines(t, filepath.Join(to, catchup.HealthFile), cu.Health)
		thinStates(t, filepath.Join(from, catchup.StatesFile), filepath.Join(to, catchup.StatesFile))
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

// thinSeries keeps every other sample, each peak, the last one and the
// samples on either side of a gap (a node down), so the chart keeps its
// shape, its peaks and its breaks.
func thinSeries(s catchup.Series) catchup.Series {
	peak, _ := s.Peak()
	var out catchup.Series
	for i := range s.T {
		gap := (i > 0 && s.T[i]-s.T[i-1] > 600) || (i+1 < len(s.T) && s.T[i+1]-s.T[i] > 600)
		if i%2 == 0 || i == len(s.T)-1 || s.V[i] == peak || gap {
			out.T, out.V = append(out.T, s.T[i]), append(out.V, s.V[i])
		}
	}
	return out
}

// thinHealth keeps each node's first and last answer and every change.
func thinHealth(hs []catchup.HealthSample) []catchup.HealthSample {
	last := map[string]int{}
	for i, h := range hs {
		last[h.Node] = i
	}
	prev := map[string]*catchup.HealthSample{}
	var out []catchup.HealthSample
	for i := range hs {
		h := &hs[i]
		p := prev[h.Node]
		if p == nil || p.OK != h.OK || p.Status != h.Status || p.Error != h.Error || last[h.Node] == i {
			out = append(out, *h)
		}
		prev[h.Node] = h
	}
	return out
}

// thinStates keeps each node's first state sample and every change.
func thinStates(t testing.TB, from, to string) {
	t.Helper()
	f, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type key struct {
		Running        bool
		OOMKills, Rest int
		Exit           int
		Err            string
	}
	seen := map[string]key{}
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		var s catchup.StateSample
		if json.Unmarshal(sc.Bytes(), &s) != nil {
			continue
		}
		k := key{s.Running, s.OOMKills, s.Restarts, s.ExitCode, s.Err}
		if old, ok := seen[s.Node]; !ok || old != k {
			out = append(out, sc.Text())
		}
		seen[s.Node] = k
	}
	reportstest.WriteText(t, to, strings.Join(out, "\n")+"\n")
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
		}, []string{"80 MiB / unset", "16 MB/s: down 5 s, then until current", "not current after 8.0 s (crash loop)",
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
