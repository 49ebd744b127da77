package catchupview

import (
	"os"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/reports"
)

// A run whose cells differ in backlog gets the chart of peak memory against
// backlog, one line a release with its slope; a run of one backlog none.
func TestSlopeBlock(t *testing.T) {
	dir := "../testdata/slope"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := &reports.Run{Dir: dir}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "v2.1") {
			r.Cells = append(r.Cells, &reports.Cell{Rel: e.Name()})
		}
	}
	b, ok := slopeBlock(r)
	if !ok || !strings.Contains(string(b.Chart), "<svg") {
		t.Fatalf("no chart: %+v", b)
	}
	for _, want := range []string{"v2.15.3, Direct Get off: slope 0.55", "v2.11.8, Direct Get off: slope 0.09", "v2.10.7", "above 0.15"} {
		if !strings.Contains(b.Lead, want) {
			t.Errorf("lead %q lacks %q", b.Lead, want)
		}
	}
	r.Cells = r.Cells[:1]
	if _, ok := slopeBlock(r); ok {
		t.Error("a single cell drew a slope")
	}
}
