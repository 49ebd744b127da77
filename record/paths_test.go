package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// results.json, the run's and each cell's, names the run's folders
// relative to the run folder, whether the process had them absolute or
// relative to its working directory, and leaves the result in memory as
// it was; a run moved elsewhere resolves them there, and folders stored
// absolute before load as they are.
func TestResultsStoredRelative(t *testing.T) {
	const cell = "direct-get-off"
	for _, tc := range []struct {
		name   string
		runDir func(t *testing.T) string
	}{
		{"absolute", func(t *testing.T) string { return filepath.Join(t.TempDir(), "store", "20261201T000000Z-s1") }},
		{"relative to the working directory", func(t *testing.T) string {
			t.Chdir(t.TempDir())
			return filepath.Join("store", "20261201T000000Z-s1")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runDir := tc.runDir(t)
			cellDir := filepath.Join(runDir, cell)
			if err := os.MkdirAll(cellDir, 0o755); err != nil {
				t.Fatal(err)
			}
			res := Result{ID: "r", Dir: runDir, Cells: []CellResult{{Cell: Cell{Name: cell}, Dir: cellDir, Cluster: cluster.Config{Dir: cellDir}}},
				Repeats: []RepeatSummary{{Cell: cell, FirstFailure: &Failure{Dir: cellDir}}}}
			if err := WriteResult(res); err != nil {
				t.Fatal(err)
			}
			if err := WriteCellResult(runDir, cellDir, res.Cells[0]); err != nil {
				t.Fatal(err)
			}
			if res.Dir != runDir || res.Cells[0].Dir != cellDir || res.Cells[0].Cluster.Dir != cellDir || res.Repeats[0].FirstFailure.Dir != cellDir {
				t.Errorf("storing changed the result in memory: %+v", res)
			}
			var stored struct {
				Dir   string `json:"dir"`
				Cells []struct {
					Dir     string `json:"dir"`
					Cluster struct {
						Dir string `json:"dir"`
					} `json:"cluster"`
				} `json:"cells"`
				Repeats []struct {
					FirstFailure struct {
						Dir string `json:"dir"`
					} `json:"first_failure"`
				} `json:"repeats"`
			}
			readJSONFile(t, filepath.Join(runDir, "results.json"), &stored)
			if got := []string{stored.Dir, stored.Cells[0].Dir, stored.Cells[0].Cluster.Dir, stored.Repeats[0].FirstFailure.Dir}; strings.Join(got, " ") != ". "+cell+" "+cell+" "+cell {
				t.Errorf("results.json stores %q", got)
			}
			var storedCell CellResult
			readJSONFile(t, filepath.Join(cellDir, "results.json"), &storedCell)
			if storedCell.Dir != cell || storedCell.Cluster.Dir != cell {
				t.Errorf("the cell's results.json stores %q and %q", storedCell.Dir, storedCell.Cluster.Dir)
			}

			moved := filepath.Join(t.TempDir(), "copied")
			if err := os.Rename(runDir, moved); err != nil {
				t.Fatal(err)
			}
			var loaded Result
			readJSONFile(t, filepath.Join(moved, "results.json"), &loaded)
			loaded.Resolve(moved)
			want := filepath.Join(moved, cell)
			if loaded.Dir != moved || loaded.Cells[0].Dir != want || loaded.Cells[0].Cluster.Dir != want || loaded.Repeats[0].FirstFailure.Dir != want {
				t.Errorf("resolved in %s: %+v, first failure %+v", moved, loaded, loaded.Repeats[0].FirstFailure)
			}
			var loadedCell CellResult
			readJSONFile(t, filepath.Join(moved, cell, "results.json"), &loadedCell)
			if loadedCell.Resolve(moved); loadedCell.Dir != want || loadedCell.Cluster.Dir != want {
				t.Errorf("the cell resolved in %s: %q, %q", moved, loadedCell.Dir, loadedCell.Cluster.Dir)
			}
		})
	}
	// Stored before paths were relative: absolute, they load as they are.
	old := Result{Dir: "/srv/chaos/store/x", Cells: []CellResult{{Dir: "/srv/chaos/store/x/c", Cluster: cluster.Config{Dir: "/srv/chaos/store/x/c"}}},
		Repeats: []RepeatSummary{{FirstFailure: &Failure{Dir: "/srv/chaos/store/x/c"}}}}
	old.Resolve(t.TempDir())
	if old.Dir != "/srv/chaos/store/x" || old.Cells[0].Dir != "/srv/chaos/store/x/c" || old.Cells[0].Cluster.Dir != "/srv/chaos/store/x/c" ||
		old.Repeats[0].FirstFailure.Dir != "/srv/chaos/store/x/c" {
		t.Errorf("absolute folders moved: %+v", old)
	}
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
