package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
)

// pageOf renders a run folder and returns the page.
func pageOf(t *testing.T, dir string) string {
	t.Helper()
	if _, err := Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runs are the stored runs every page test renders.
func runs(t *testing.T) map[string]string {
	return map[string]string{
		"testdata": unpackRun(t),
		"matrix":   reportstest.WriteRun(t, reportstest.SyntheticMatrix()),
		// watched, with a triggered fault: cluster-events.jsonl linked too
		"triggered": unpackTriggered(t),
	}
}

// The page fetches nothing and every link resolves.
func TestHTMLIsSelfContained(t *testing.T) {
	for name, dir := range runs(t) {
		t.Run(name, func(t *testing.T) {
			page := pageOf(t, dir)
			reportstest.CheckSelfContained(t, page)
			// history, stream, results, logs, configs
			reportstest.CheckLinks(t, dir, page, 10)
		})
	}
}

func TestRenderTestdataRun(t *testing.T) {
	dir := unpackRun(t)
	r, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	want := []string{
		// The verdict in one sentence, at the top: without a view, said
		// from the checks.
		"Direct Get on: session: 42 read-your-writes and 0 monotonic-read violations in 2531 gets (1.659%), stale-read: 42 of 2531 gets",
		"Direct Get off: none (all 6 checks passed).",
		// The exact command with its seed, and how to re-render.
		"chaos run --clients=4 --keys=4 --nemesis=kill --nemesis-interval=1s --runtime=local --time-limit=3s --workload=kv-update --seed=31",
		"chaos report " + dir,
		// Versions, fault windows, porcupine and logs.
		"v2.15.3", "nats.go (client)", "kill", "n2",
		`href="direct-get-on/porcupine/linearizability-k0-16.html"`, `href="direct-get-off/logs/n1.log"`,
		`href="junit.xml"`, `href="direct-get-on/history.jsonl"`,
		"Throughput", "Latency", "Errors by kind",
		// Every check with its summary.
		"wrong-last-seq", "42 wrong-last-sequence rejections (10071: 42): 42 stale_read, 0 concurrent_write, 0 spurious",
	}
	for _, w := range want {
		if !bytes.Contains(page, []byte(w)) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	if got := strings.Index(string(page), "stale-read: 42 of 2531 gets"); got < 0 || got > strings.Index(string(page), "Cells side by side") {
		t.Error("the verdict sentence is not above the cells table")
	}
	// What only the kv-update view says is not on the generic page.
	for _, w := range []string{"How stale were the stale reads?", "What was tested", "KV under faults", "Stale reads"} {
		if bytes.Contains(page, []byte(w)) {
			t.Errorf("the generic page shows %q", w)
		}
	}
	if len(r.Cells) != 2 || r.Cells[0].Series == nil || r.Cells[0].Series.Ops != r.Result.Cells[0].Ops.Total {
		t.Errorf("series of the first cell: %+v", r.Cells[0].Series)
	}
	if _, err := os.Stat(filepath.Join(dir, JUnitFile)); err != nil {
		t.Error(err)
	}
}

// A run folder moved elsewhere re-renders from its own files: nothing is
// read from the paths recorded in results.json.
func TestRenderMovedRun(t *testing.T) {
	dir := unpackRun(t)
	moved := filepath.Join(t.TempDir(), "somewhere", "else")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	page := pageOf(t, moved)
	if !strings.Contains(page, `href="direct-get-on/history.jsonl"`) || strings.Contains(page, "(missing)") {
		t.Error("moved run lost its links")
	}
}

func TestRenderPartialRun(t *testing.T) {
	dir := unpackRun(t)
	if err := os.Remove(filepath.Join(dir, "results.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "direct-get-off", "results.json")); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial || !r.Result.Interrupted || len(r.Cells) != 2 {
		t.Fatalf("partial load: partial=%v interrupted=%v cells=%d", r.Partial, r.Result.Interrupted, len(r.Cells))
	}
	if r.Cells[1].CellResult.Verdict != record.Error || r.Cells[1].Series == nil {
		t.Errorf("cell without results.json: verdict %s, series %v", r.Cells[1].CellResult.Verdict, r.Cells[1].Series != nil)
	}
	page := pageOf(t, dir)
	for _, w := range []string{"has no results.json", "stale-read: 42 of 2531 gets", "no results.json: the run was interrupted"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if record.ExitCode(r.Result, nil) != record.ExitInterrupted {
		t.Errorf("exit code of an interrupted run = %d", record.ExitCode(r.Result, nil))
	}
}

func TestLoadNotARun(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a run folder") {
		t.Errorf("Load of an empty folder: %v", err)
	}
}

// Runs stored before spec.kv became a list, and before settings replaced
// spec.kv and cells[].workload, still render.
func TestLoadOldSpecShape(t *testing.T) {
	dir := reportstest.WriteRun(t, reportstest.SyntheticMatrix())
	for _, name := range []string{"results.json", "run.json"} {
		p := filepath.Join(dir, name)
		b, _ := os.ReadFile(p)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		spec := m
		if s, ok := m["spec"].(map[string]any); ok {
			spec = s
		}
		spec["kv"] = spec["settings"].([]any)[0] // the oldest shape: one object
		delete(spec, "settings")
		if cells, ok := m["cells"].([]any); ok {
			for _, c := range cells { // and each cell's options under "workload"
				cm := c.(map[string]any)
				cm["workload"], cm["kv"] = cm["settings"], cm["settings"]
				delete(cm, "settings")
			}
		}
		reportstest.WriteJSON(t, p, m)
	}
	keys := func(raw json.RawMessage) int {
		var o struct {
			Keys int `json:"keys"`
		}
		_ = json.Unmarshal(raw, &o)
		return o.Keys
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Result.Spec.Settings; len(s) != 1 || keys(s[0]) != 10 {
		t.Errorf("old spec.kv read as %s", s)
	}
	if c := r.Result.Cells; len(c) == 0 || keys(c[0].Settings) != 10 {
		t.Errorf("old cells[].workload not read as the cell's settings")
	}
	_ = os.Remove(filepath.Join(dir, "results.json"))
	r, err = Load(dir)
	if err != nil || len(r.Result.Spec.Settings) != 1 {
		t.Errorf("old run.json: %v %+v", err, r)
	}
}

func TestExpectationsOnThePage(t *testing.T) {
	dir := unpackRun(t)
	if _, err := WriteWith(dir, Options{Expect: []record.Expectation{{Cells: "direct-get-on", Anomaly: "stale-reads"}}}); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	for _, w := range []string{"invalid, as expected", "direct-get-on=stale-reads", "VALID</span>", "1 of 1 keys not linearizable (k0) (expected);",
		"Only the expected anomalies were found"} {
		if !bytes.Contains(page, []byte(w)) {
			t.Errorf("page lacks %q", w)
		}
	}
	junit, _ := os.ReadFile(filepath.Join(dir, JUnitFile))
	if !bytes.Contains(junit, []byte(`failures="0"`)) {
		t.Errorf("expected anomaly failed in junit.xml")
	}
}

// TestMemoryChartFromFile: a cell's memory chart is drawn from the
// observer's readings (nodes.jsonl): every node's usage, the limit they
// all ran under drawn once, the OOM kill the runtime's counters show.
func TestMemoryChartFromFile(t *testing.T) {
	page := pageOf(t, reportstest.WriteRun(t, reportstest.SyntheticMatrix()))
	for _, w := range []string{"Memory per node", "limit 512 MiB", "OOM n2", "n2 OOM-killed at 12.0s: OOM kill #1 (seen between 11.0s and 12.0s)",
		"nodes.jsonl (every node over time"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

func TestRegisterMemorySource(t *testing.T) {
	dir := unpackRun(t)
	called := 0
	RegisterMemorySource(func(cellDir string, c record.CellResult) (*Memory, error) {
		if !strings.HasPrefix(cellDir, dir) {
			return nil, nil
		}
		called++
		return &Memory{LimitBytes: 1 << 30, Nodes: []NodeMemory{{Node: "n1", Samples: []MemSample{{0, 1 << 20}, {1e9, 2 << 20}}}}}, nil
	})
	t.Cleanup(func() {
		memMu.Lock()
		memSources = memSources[1:]
		memMu.Unlock()
	})
	page := pageOf(t, dir)
	if called != 2 || !strings.Contains(page, "limit 1 GiB") {
		t.Errorf("memory source called %d times; chart drawn: %v", called, strings.Contains(page, "limit 1 GiB"))
	}
}
