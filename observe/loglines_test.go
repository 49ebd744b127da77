package observe

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Lines of interest are counted per node and pattern with the first and
// last of each, sorted by node then pattern; a node without a log is
// skipped, and a pattern never seen gives no row.
func TestCountLogLines(t *testing.T) {
	dir := t.TempDir()
	logs := map[string]string{
		"n2": "a Catchup for stream x\nnothing\nb Catchup for stream y\nc Healthcheck failed\n",
		"n1": "d Healthcheck failed\n",
	}
	for n, l := range logs {
		if err := os.WriteFile(filepath.Join(dir, n+".log"), []byte(l), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := CountLogLines(dir, []string{"n1", "n2", "n3"}, []string{"Catchup for stream", "Healthcheck failed", "never"})
	want := []LogMatch{
		{Node: "n1", Pattern: "Healthcheck failed", Count: 1, First: "d Healthcheck failed"},
		{Node: "n2", Pattern: "Catchup for stream", Count: 2, First: "a Catchup for stream x", Last: "b Catchup for stream y"},
		{Node: "n2", Pattern: "Healthcheck failed", Count: 1, First: "c Healthcheck failed"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
