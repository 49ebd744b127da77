package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Recheck judges a stored cell again from its files, as the run did: the
// workload named by the run's run.json, or else by the cell's own
// results.json, and the recovery stored in the cell's results.json, if any.
// A cell that names no workload either way (stored before cells named
// theirs, and copied out of its run folder) is judged as workloads.Default,
// the only workload of the runs stored before run.json named one, and the
// returned name says so. An interrupted cell with a partial history is
// checked as it is.
func Recheck(cellDir string, opts checker.Options) (string, []checker.Result, error) {
	cellDir = filepath.Clean(cellDir) // "cell/" names the same cell as "cell"
	var cell struct {
		Workload string            `json:"workload_name"`
		Recovery *nemesis.Recovery `json:"recovery"`
	}
	if b, err := os.ReadFile(filepath.Join(cellDir, record.ResultFile)); err == nil {
		_ = json.Unmarshal(b, &cell)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", nil, err
	}
	name, named, err := storedWorkload(filepath.Dir(cellDir))
	if err != nil {
		return name, nil, err
	}
	switch {
	case named:
	case cell.Workload != "":
		name = cell.Workload
	default:
		name += " (assumed: neither a run.json beside the cell nor its results.json names a workload)"
	}
	w, err := workloads.Get(strings.Fields(name)[0])
	if err != nil {
		return name, nil, fmt.Errorf("%s: %w", filepath.Join(filepath.Dir(cellDir), record.SpecFile), err)
	}
	checks, err := CheckCell(cellDir, w, cell.Recovery, opts)
	return name, checks, err
}

// storedWorkload is the workload run.json in runDir names, and whether
// there is a run.json to say: workloads.Default when it names none (runs
// stored before it was recorded, when there was no other workload). A run.json that cannot be read or
// decoded is an error, never silently the default workload.
func storedWorkload(runDir string) (string, bool, error) {
	var spec struct {
		Workload string `json:"workload"`
	}
	path := filepath.Join(runDir, record.SpecFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return workloads.Default, false, nil
	case err != nil:
		return workloads.Default, false, err
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		return workloads.Default, false, fmt.Errorf("%s: %w", path, err)
	}
	if spec.Workload == "" { // a run stored before run.json named its workload: there was one then
		return workloads.Default, true, nil
	}
	return spec.Workload, true, nil
}

// RecheckRun is the workload's checks across the stored cells of a run
// folder, as the run made them.
func RecheckRun(runDir string, cellDirs []string) []checker.Result {
	name, _, err := storedWorkload(filepath.Clean(runDir))
	if err != nil {
		return nil
	}
	w, err := workloads.Get(name)
	if err != nil {
		return nil
	}
	return CheckRun(w, cellDirs)
}
