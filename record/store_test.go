package record

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// TestReadResolvesStoredFolders: what WriteResult and WriteCellResult
// store, ReadResult and ReadCell read back from wherever the run folder
// was moved, every folder a path under it again.
func TestReadResolvesStoredFolders(t *testing.T) {
	const cell = "direct-get-off"
	runDir := filepath.Join(t.TempDir(), "20261201T000000Z-s1")
	cellDir := filepath.Join(runDir, cell)
	if err := os.MkdirAll(cellDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cr := CellResult{Cell: Cell{Name: cell}, Dir: cellDir, Cluster: cluster.Config{Dir: cellDir}, Verdict: Valid}
	res := Result{ID: "r", Dir: runDir, Cells: []CellResult{cr}, Verdict: Valid,
		Repeats: []RepeatSummary{{Cell: cell, FirstFailure: &Failure{Dir: cellDir}}}}
	if err := WriteSpec(runDir, Spec{Workload: "queue"}); err != nil {
		t.Fatal(err)
	}
	if err := WriteResult(res); err != nil {
		t.Fatal(err)
	}
	if err := WriteCellResult(runDir, cellDir, cr); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "copied")
	if err := os.Rename(runDir, moved); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(moved, cell)
	got, err := ReadResult(moved)
	if err != nil {
		t.Fatal(err)
	}
	if got.Dir != moved || got.Cells[0].Dir != want || got.Cells[0].Cluster.Dir != want || got.Repeats[0].FirstFailure.Dir != want {
		t.Errorf("ReadResult in %s: dir %q, cell %q, cluster %q, first failure %q", moved, got.Dir, got.Cells[0].Dir,
			got.Cells[0].Cluster.Dir, got.Repeats[0].FirstFailure.Dir)
	}
	gotCell, err := ReadCell(want, moved)
	if err != nil {
		t.Fatal(err)
	}
	if gotCell.Dir != want || gotCell.Cluster.Dir != want || gotCell.Name != cell {
		t.Errorf("ReadCell in %s: %q, dir %q, cluster %q", moved, gotCell.Name, gotCell.Dir, gotCell.Cluster.Dir)
	}
	b, err := os.ReadFile(filepath.Join(moved, SpecFile))
	if err != nil {
		t.Fatal(err)
	}
	if spec, err := DecodeSpec(b); err != nil || spec.Workload != "queue" {
		t.Errorf("run.json read back as %+v, %v", spec, err)
	}
}
