package catchup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
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

// The nodes' logs are saved only when the cluster closes, after Finish
// wrote catchup.json: Load counts their lines of interest, and keeps the
// counts of a cell stored with them.
func TestLoadCountsLogLines(t *testing.T) {
	dir := t.TempDir()
	r := &cell{dir: dir}
	r.res.Nodes = []cluster.Node{{Name: "n1"}, {Name: "n2"}}
	if err := r.writeFiles(); err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	log := "[1] [INF] Catchup for stream 'A > S' complete\n[1] [INF] other\n[1] [WRN] Catchup for stream 'A > S' stalled\n"
	if err := os.WriteFile(filepath.Join(logs, "n1.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.LogLines) != 1 || got.LogLines[0].Node != "n1" || got.LogLines[0].Count != 2 || got.LogLines[0].Last == "" {
		t.Fatalf("log lines %+v, want n1's two catch-up lines", got.LogLines)
	}
	stored := Result{LogLines: []LogMatch{{Node: "n2", Pattern: "Healthcheck failed", Count: 7, First: "x"}}}
	if err := Save(dir, stored); err != nil {
		t.Fatal(err)
	}
	if got, err = Load(dir); err != nil || len(got.LogLines) != 1 || got.LogLines[0].Count != 7 {
		t.Fatalf("stored counts %+v (%v), want the stored n2 count of 7", got.LogLines, err)
	}
}
