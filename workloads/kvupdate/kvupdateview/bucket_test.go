package kvupdateview

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
)

// A run stored before --history and --mix kept every revision and only
// updated, and ran none of the checks of what was stored after the heal.
func TestBucketRowsOfAnOlderRun(t *testing.T) {
	r, err := reports.Load(reportstest.UnpackKVRun(t))
	if err != nil {
		t.Fatal(err)
	}
	got := matrixText(reports.NewPage(r).Table())
	for label, want := range map[string]string{
		"History per key":     "all",
		"Op mix":              "update:100",
		"Read-back":           reports.NA.Text,
		"Deletes and creates": reports.NA.Text,
		"Replicas agree":      reports.NA.Text,
	} {
		row, ok := got[label]
		if !ok {
			t.Errorf("no %q row", label)
			continue
		}
		for _, v := range strings.Split(row, " | ") {
			if v != want {
				t.Errorf("%s: %q, want %q in every cell", label, row, want)
				break
			}
		}
	}
}
