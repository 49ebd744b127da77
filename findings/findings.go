// Package findings turns a judged cell into finding.md: one bug report per
// anomaly class the checkers found, written to be pasted into a
// nats-server issue by someone who never saw this toolkit. Each report
// says what the client was promised and what happened, the few operations
// involved (client, node, times relative and wall-clock, replies), where
// the values ended up in the stream, the fault windows around them, each
// node's server log lines within a second of them, versions and cluster
// configuration, and the exact command that reruns the cell.
//
// A cell gets one file, FileName, with one self-contained section per
// class (anchored by Finding.Class), so one section pastes as one issue;
// several classes in one cell are usually one event seen by several
// checkers, and stay side by side. Everything is read from the stored
// files (the cell's results.json, history.jsonl, stream.jsonl, config/,
// logs/ and the run's run.json and results.json), so `chaos report`
// rebuilds the same file.
package findings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// FileName is the finding's file in the cell folder.
const FileName = "finding.md"

// Finding is one anomaly class found in a cell.
type Finding struct {
	// Class is a stable name, also the section's anchor in FileName:
	// "failed-write-applied", "lost-stream-head", "stale-read", ...
	Class string `json:"class"`
	// Title is the section heading, one line in the client's terms.
	Title string `json:"title"`
	// Check is the checker that found it; Kind its anomaly kind ("" when
	// the check keeps no examples).
	Check string `json:"check"`
	Kind  string `json:"kind,omitempty"`
	// Count is how many the checker counted.
	Count int `json:"count"`
	// Summary is one sentence: what happened.
	Summary string `json:"summary"`
	// AfterPowerLoss says nodes lost power in the cell under a
	// sync_interval other than always (or not recorded): NATS documents
	// that this can lose acknowledged messages, so the finding is a bug
	// report only if it reproduces with sync_interval always.
	AfterPowerLoss bool `json:"after_power_loss,omitempty"`
}

// Link is the finding's address relative to the cell folder.
func (f Finding) Link() string { return FileName + "#" + f.Class }

// Write builds the cell's findings from its stored files and writes
// FileName into cellDir; with none, it removes a FileName left by an
// earlier build.
func Write(cellDir string) ([]Finding, error) { return write(cellDir, nil, defaultEnv()) }

// WriteResult is Write with the cell's result given instead of read from
// results.json: the pipeline calls it once the cell is judged, before
// results.json is stored.
func WriteResult(cellDir string, result record.CellResult) ([]Finding, error) {
	e := defaultEnv()
	e.clientIsRun = true
	return write(cellDir, &result, e)
}

// Build renders the cell's findings without writing anything: the
// findings and FileName's content (nil when there are none).
func Build(cellDir string) ([]Finding, []byte, error) {
	c, err := load(cellDir, nil)
	if err != nil {
		return nil, nil, err
	}
	fs, md := render(c, defaultEnv())
	return fs, md, nil
}

func write(cellDir string, result *record.CellResult, e env) ([]Finding, error) {
	c, err := load(cellDir, result)
	if err != nil {
		return nil, err
	}
	fs, md := render(c, e)
	path := filepath.Join(cellDir, FileName)
	if len(fs) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		return nil, nil
	}
	return fs, atomicfile.Write(path, md)
}

// WriteRun writes the findings of every cell folder of a stored run (a
// sub-folder holding results.json), as `chaos report` does. It returns
// the findings by cell folder name; a cell that cannot be read is an error
// naming it, after the others were written.
func WriteRun(runDir string) (map[string][]Finding, error) {
	entries, err := os.ReadDir(runDir)
	if err != nil {
		return nil, err
	}
	out := map[string][]Finding{}
	var errs []error
	for _, e := range entries {
		dir := filepath.Join(runDir, e.Name())
		if !e.IsDir() || !exists(filepath.Join(dir, record.ResultFile)) {
			continue
		}
		fs, err := Write(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("finding of %s: %w", dir, err))
			continue
		}
		out[e.Name()] = fs
	}
	return out, errors.Join(errs...)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
