package reports

import (
	"strings"
	"testing"
)

// matrixText is the cells table as "row: cell | cell" lines.
func matrixText(rows []MatrixRow) map[string]string {
	out := map[string]string{}
	for _, r := range rows {
		if r.Group {
			continue
		}
		var vals []string
		for _, v := range r.Vals {
			vals = append(vals, v.Text)
		}
		out[r.Label] = strings.Join(vals, " | ")
	}
	return out
}

// The kv-update table keeps its rows when a run is not a catch-up run.
func TestKVMatrixUnchanged(t *testing.T) {
	r, err := Load(unpackRun(t))
	if err != nil {
		t.Fatal(err)
	}
	got := matrixText(NewPage(r).Table())
	for _, k := range []string{"Stale reads", "Updates", "Operations", "Faults", "Linearizable keys", "Stream integrity"} {
		if _, ok := got[k]; !ok {
			t.Errorf("kv-update table lacks %q", k)
		}
	}
	if _, ok := got["Catch-up time"]; ok {
		t.Errorf("catch-up row in a kv-update table")
	}
}
