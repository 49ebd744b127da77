package record

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
)

// WriteSpec stores spec as the run folder runDir's run.json.
func WriteSpec(runDir string, spec Spec) error {
	return writeJSON(filepath.Join(runDir, SpecFile), spec)
}

// WriteResult stores the run's results.json in the run folder res.Dir, its
// folders relative to it; res itself is left as it was.
func WriteResult(res Result) error {
	stored, err := res.relativeTo(res.Dir)
	if err != nil {
		return err
	}
	return writeJSON(filepath.Join(res.Dir, ResultFile), stored)
}

// WriteCellResult stores a cell's results.json in its folder cellDir, its
// paths relative to the run folder runDir, as the run's results.json has
// them.
func WriteCellResult(runDir, cellDir string, cr CellResult) error {
	stored, err := cr.relativeTo(runDir)
	if err != nil {
		return err
	}
	return writeJSON(filepath.Join(cellDir, ResultFile), stored)
}

// ReadResult reads the run folder runDir's results.json, in any shape it
// has had (DecodeResult), its folders resolved under runDir. A file that
// cannot be read is the read's error; one that does not decode is an error
// naming it.
func ReadResult(runDir string) (Result, error) {
	path := filepath.Join(runDir, ResultFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return Result{}, err
	}
	res, err := DecodeResult(b)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", path, err)
	}
	res.Resolve(runDir)
	return res, nil
}

// ReadCell reads the results.json of the cell folder cellDir, in any shape
// it has had (DecodeCell), its folders resolved under the run folder
// runDir. Errors as ReadResult's.
func ReadCell(cellDir, runDir string) (CellResult, error) {
	path := filepath.Join(cellDir, ResultFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return CellResult{}, err
	}
	c, err := DecodeCell(b)
	if err != nil {
		return CellResult{}, fmt.Errorf("%s: %w", path, err)
	}
	c.Resolve(runDir)
	return c, nil
}

// writeJSON writes v indented, through a temp file so a reader never sees
// half a file.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}
