package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// results.json stores the run's folders relative to the run folder
// (record.Result.Resolve): Load makes them paths under the folder it reads,
// from the run's results.json and, for a run cut short, from a cell's.
func TestLoadResolvesStoredFolders(t *testing.T) {
	for _, tc := range []struct {
		name    string
		partial bool // the run's results.json removed: the cells' are read
	}{
		{"the run's results.json", false},
		{"a cell's results.json", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := unpackRun(t)
			const cell = "direct-get-on"
			for _, f := range []string{"results.json", filepath.Join(cell, "results.json")} {
				storeRelative(t, filepath.Join(dir, f), cell)
			}
			if tc.partial {
				if err := os.Remove(filepath.Join(dir, "results.json")); err != nil {
					t.Fatal(err)
				}
			}
			r, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			want, found := filepath.Join(dir, cell), false
			for _, c := range r.Result.Cells {
				if c.Name != cell {
					continue
				}
				found = true
				if c.Dir != want || c.Cluster.Dir != want {
					t.Errorf("%s: dir %q, cluster %q; want %q", cell, c.Dir, c.Cluster.Dir, want)
				}
			}
			if !found {
				t.Errorf("no cell %s among %d", cell, len(r.Result.Cells))
			}
		})
	}
}

// storeRelative rewrites the folders of results.json at path as a run
// now stores them: the cell's "dir" and its cluster's relative to the run
// folder (for the run's, of the cell named cell; the run's own ".").
func storeRelative(t *testing.T, path, cell string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	setDirs := func(c map[string]any) {
		c["dir"] = cell
		c["cluster"].(map[string]any)["dir"] = cell
	}
	if cells, ok := m["cells"].([]any); ok {
		m["dir"] = "."
		for _, c := range cells {
			if c := c.(map[string]any); c["name"] == cell {
				setDirs(c)
			}
		}
	} else {
		setDirs(m)
	}
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
