package reports

import (
	"path/filepath"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
)

// TestIntegrationBrowserRendersReport opens the generic page (no view registered
// here) of the kv-update test run, of a synthetic matrix with faults,
// harness errors and memory, and of a watched run with a triggered fault
// in headless Chromium (reportstest.CheckInBrowser says what must hold).
func TestIntegrationBrowserRendersReport(t *testing.T) {
	page := func(dir func(t *testing.T) string) func(t *testing.T) string {
		return func(t *testing.T) string {
			d := dir(t)
			if _, err := Write(d); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(d, HTMLFile)
		}
	}
	reportstest.CheckInBrowser(t, []reportstest.BrowserCase{
		{Name: "testdata", Page: page(func(t *testing.T) string { return unpackRun(t) }),
			Want: []string{"Direct Get on:", "stale-read: 42 of", "Direct Get off: none"}, Charts: 6, Height: 1500},
		{Name: "matrix", Page: page(func(t *testing.T) string { return reportstest.WriteRun(t, reportstest.SyntheticMatrix()) }),
			Want: []string{"did not run to the end", "Memory per node", "undecided"}, Charts: 8, Height: 1500},
		// A watched run: its events and the triggered kill's effect are
		// markers on each of its 3 charts, each showing its hover text.
		{Name: "triggered", Page: page(func(t *testing.T) string { return unpackTriggered(t) }),
			Want: []string{"Watched events (each is a marker over the charts): leader-change 2, restart 1.",
				"leader-change: effect 1.6 ms after leader-change to n3 (from n1) at 3.132s"}, Charts: 3, Height: 1500,
			Hovers: []reportstest.Hover{
				{Selector: `svg.chart g.event[data-kind="leader-change"]`, Min: 6, Title: "JetStream cluster new stream leader for '$G > KV_chaos'"},
				{Selector: `svg.chart g.event[data-kind="restart"]`, Min: 3, Title: "restart of n3 at 7.497s, seen by poll"},
				{Selector: "svg.chart g.effect", Min: 3, Title: "kill:new-leader@leader-change n3: effect 1.6 ms after leader-change to n3"},
			}},
	})
}
