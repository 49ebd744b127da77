package catchupview

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// A cell folder holding the catch-up workload's catchup.json gets the
// memory chart: usage, RSS, the limit as it changed, OOM kills and the
// harness's own kill, wipe and start.
func TestMemoryFromCatchup(t *testing.T) {
	dir := reportstest.UnpackKVRun(t)
	writeCatchupResult(t, filepath.Join(dir, "direct-get-off"))
	page := pageOf(t, dir)
	for _, w := range []string{"Memory per node", "n2 RSS", "n2 limit", "OOM n2", "n2 OOM-killed at 30.0s: exit 137", "wipe n2", "start n2",
		"no memory samples recorded for this cell"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

// writeCatchupResult saves a made-up catchup.json: n2 is killed, wiped,
// restarted under a 400 MiB limit and OOM-killed.
func writeCatchupResult(t testing.TB, cellDir string) {
	t.Helper()
	var r catchup.Result
	for i, n := range []string{"n1", "n2", "n3"} {
		nm := catchup.NodeMemory{NodeMemory: observe.NodeMemory{Node: n}}
		for ms := int64(0); ms <= 60000; ms += 250 {
			v := int64(200<<20) + ms*int64(i+1)*1000
			if n == "n2" && ms > 30000 {
				v = int64(50<<20) + (ms-30000)*2000
			}
			nm.Usage.T, nm.Usage.V = append(nm.Usage.T, ms), append(nm.Usage.V, v)
			nm.RSS.T, nm.RSS.V = append(nm.RSS.T, ms), append(nm.RSS.V, v*2/3)
		}
		if n == "n2" {
			nm.Limit.T, nm.Limit.V = []int64{0, 20000}, []int64{0, 400 << 20}
		}
		r.Memory = append(r.Memory, nm)
	}
	r.Events = []observe.Event{
		{TMs: 10000, Node: "n2", Kind: catchup.EvKill},
		{TMs: 10100, Node: "n2", Kind: catchup.EvWipe},
		{TMs: 20000, Node: "n2", Kind: catchup.EvStart},
		{TMs: 30000, Node: "n2", Kind: observe.EvOOMKill, Detail: "exit 137"},
		{TMs: 30400, Node: "n2", Kind: observe.EvRestart},
	}
	if err := catchup.Save(cellDir, r); err != nil {
		t.Fatal(err)
	}
}

// The catch-up pages fetch nothing and every link resolves.
func TestCatchupPagesSelfContained(t *testing.T) {
	ok, rok := mkCatchupCell(cuOpts{directGet: true, limit: 1536 << 20})
	gone, _ := mkCatchupCell(cuOpts{version: "v2.11.8", harness: "cluster: start n2: timeout", noRestart: true, noResult: true})
	for name, dir := range map[string]func(t *testing.T) string{
		catchupLimitRun: func(t *testing.T) string { return unpackCatchup(t, catchupLimitRun) },
		catchupLoopRun:  func(t *testing.T) string { return unpackCatchup(t, catchupLoopRun) },
		"made up":       func(t *testing.T) string { return writeCatchupRun(t, catchupRunOf(ok, gone), rok, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			d := dir(t)
			page := pageOf(t, d)
			reportstest.CheckSelfContained(t, page)
			reportstest.CheckLinks(t, d, page, 3)
		})
	}
}

// TestIntegrationBrowserRendersCatchupPages opens the two catch-up test runs (OOM
// kill; crash loop) and a kv-update run with a catchup.json in one cell in
// headless Chromium.
func TestIntegrationBrowserRendersCatchupPages(t *testing.T) {
	page := func(dir string) func(t *testing.T) string {
		return func(t *testing.T) string {
			pageOf(t, dir)
			return filepath.Join(dir, "report.html")
		}
	}
	reportstest.CheckInBrowser(t, []reportstest.BrowserCase{
		// 3 charts a cell: the target's memory, every node's, the
		// catch-up's progress; these cells were stored before the history
		// recorded publishes, so publish.csv stands in for its charts.
		{Name: "catchup", Page: func(t *testing.T) string { return page(unpackCatchup(t, catchupLimitRun))(t) },
			Want: []string{"v2.11.8, Direct Get on: n2 caught up 281 MiB in 4.3 s", "OOM-killed once under its 160 MiB limit",
				"Memory of the catching-up node n2", "Catch-up progress", "Publish latency", "Fits the limit",
				"Publishing second by second is in publish.csv"}, Charts: 12, Height: 3000},
		{Name: "catchup-loop", Page: func(t *testing.T) string { return page(unpackCatchup(t, catchupLoopRun))(t) },
			Want: []string{"n1 OOM-killed 4 times (crash loop) under its 80 MiB limit", "did not catch up", "What happened to the nodes",
				"Server log lines of interest", "Publishing second by second is in publish.csv"}, Charts: 3, Height: 2000},
		{Name: "catchup-memory", Page: func(t *testing.T) string {
			dir := reportstest.UnpackKVRun(t)
			writeCatchupResult(t, filepath.Join(dir, "direct-get-off"))
			return page(dir)(t)
			// The kv-update run renders as the generic page here (no
			// kv-update view in this package's tests): 6 history charts,
			// the memory chart and the other cell's empty one.
		}, Want: []string{"Memory per node", "n2 OOM-killed at 30.0s: exit 137"}, Charts: 8, Height: 1500},
	})
}
