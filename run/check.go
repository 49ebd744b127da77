package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Recheck judges a stored cell again from its files, as the run did: the
// workload named by the run's run.json (workloads.Default for runs stored
// before it was recorded) and the recovery stored in the cell's results.json, if any.
// An interrupted cell with a partial history is checked as it is.
func Recheck(cellDir string, opts checker.Options) (string, []checker.Result, error) {
	cellDir = filepath.Clean(cellDir) // "cell/" names the same cell as "cell"
	name, err := storedWorkload(filepath.Dir(cellDir))
	if err != nil {
		return name, nil, err
	}
	w, err := workloads.Get(name)
	if err != nil {
		return name, nil, fmt.Errorf("%s: %w", filepath.Join(filepath.Dir(cellDir), record.SpecFile), err)
	}
	var cell struct {
		Recovery *nemesis.Recovery `json:"recovery"`
	}
	if b, err := os.ReadFile(filepath.Join(cellDir, record.ResultFile)); err == nil {
		_ = json.Unmarshal(b, &cell)
	} else if !errors.Is(err, os.ErrNotExist) {
		return name, nil, err
	}
	checks, err := CheckCell(cellDir, w, cell.Recovery, opts)
	return name, checks, err
}

// storedWorkload is the workload run.json in runDir names: workloads.Default
// when there is no run.json or it names none (runs stored before it was
// recorded). A run.json that cannot be read or decoded is an error, never
// silently the default workload.
func storedWorkload(runDir string) (string, error) {
	var spec struct {
		Workload string `json:"workload"`
	}
	path := filepath.Join(runDir, record.SpecFile)
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return workloads.Default, nil
	case err != nil:
		return workloads.Default, err
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		return workloads.Default, fmt.Errorf("%s: %w", path, err)
	}
	if spec.Workload == "" {
		return workloads.Default, nil
	}
	return spec.Workload, nil
}

// RecheckRun is the workload's checks across the stored cells of a run
// folder, as the run made them.
func RecheckRun(runDir string, cellDirs []string) []checker.Result {
	name, err := storedWorkload(filepath.Clean(runDir))
	if err != nil {
		return nil
	}
	w, err := workloads.Get(name)
	if err != nil {
		return nil
	}
	return CheckRun(w, cellDirs)
}
