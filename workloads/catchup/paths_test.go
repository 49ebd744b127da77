package catchup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// storedPaths reads the two machine paths as catchup.json stores them.
func storedPaths(t *testing.T, dir string) (cell, cluster string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Dir     string `json:"dir"`
		Cluster struct {
			Dir string `json:"dir"`
		} `json:"cluster"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	return raw.Dir, raw.Cluster.Dir
}

// catchup.json stores the cell's and the cluster's folders relative to
// the cell, whichever writer wrote it, and Load resolves them against the
// cell's folder again; files written with absolute paths still load.
func TestStoredPathsRelative(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v2.15.3_direct-get-off")
	r := &cell{dir: dir}
	r.res.Dir, r.res.Cluster.Dir = dir, filepath.Join(dir, "cluster")
	if err := r.writeFiles(); err != nil {
		t.Fatal(err)
	}
	if c, cl := storedPaths(t, dir); c != "." || cl != "cluster" {
		t.Errorf("writeFiles stored dir %q, cluster dir %q; want \".\" and \"cluster\"", c, cl)
	}
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Dir != dir || loaded.Cluster.Dir != filepath.Join(dir, "cluster") {
		t.Errorf("Load resolved %q and %q, want them under %s", loaded.Dir, loaded.Cluster.Dir, dir)
	}
	// Save, as a caller that changed a loaded Result: still relative.
	if err := Save(dir, loaded); err != nil {
		t.Fatal(err)
	}
	if c, cl := storedPaths(t, dir); c != "." || cl != "cluster" {
		t.Errorf("Save stored dir %q, cluster dir %q; want \".\" and \"cluster\"", c, cl)
	}
	// A file of an older writer: absolute paths of another machine load
	// as they are.
	old := t.TempDir()
	body := `{"dir":"/work/notes/measure/store/r1/c1","cluster":{"dir":"/work/notes/measure/store/r1/c1"},"target":"n2"}`
	if err := os.WriteFile(filepath.Join(old, ResultFile), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := Load(old); err != nil || o.Dir != "/work/notes/measure/store/r1/c1" || o.Cluster.Dir != o.Dir || o.Target != "n2" {
		t.Errorf("an absolute catchup.json: %+v %v", o.Dir, err)
	}
}
