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

// A point the target's limit held down is drawn at the least its demand
// was, and the lead says which; a line left with one backlog is not drawn.
func TestSlopeBlockCensored(t *testing.T) {
	cells := func(dir string, names ...string) *reports.Run {
		r := &reports.Run{Dir: dir}
		for _, n := range names {
			r.Cells = append(r.Cells, &reports.Cell{Rel: n})
		}
		return r
	}
	r := cells("../testdata/slope_censored/oom_steep", "v2.15.3_backlog-536870912", "v2.15.3_backlog-1073741824", "v2.15.3_backlog-2147483648")
	b, ok := slopeBlock(r)
	if !ok {
		t.Fatal("no chart")
	}
	for _, want := range []string{"slope 0.71", "v2.15.3_backlog-2147483648 (was OOM-killed once: at least 1.5 GiB)"} {
		if !strings.Contains(b.Lead, want) {
			t.Errorf("lead %q lacks %q", b.Lead, want)
		}
	}
	if _, ok := slopeBlock(cells("../testdata/slope_left_out", "v2.11.8_backlog-536870912", "v2.11.8_backlog-2147483648")); ok {
		t.Error("a line left with one backlog was drawn")
	}
}
