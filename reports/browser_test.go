package reports

import (
	"path/filepath"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
)

// TestIntegrationBrowserRendersReport opens the generic page (no view registered
// here) of the kv-update test run and of a synthetic matrix with faults,
// harness errors and memory in headless Chromium
// (reportstest.CheckInBrowser says what must hold).
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
	})
}
