package record

import (
	"fmt"
	"path/filepath"
)

// results.json stores its folders (the run's, each cell's, each cell's
// cluster's, a repeated cell's first failure) relative to the run folder:
// as the process gave them they were paths of the machine that ran it,
// absolute or relative to its working directory, and named nothing once
// the run was moved or copied. Resolve makes them paths again on load;
// folders stored before, absolute, load as they are.

// relativeTo is res with its folders relative to runDir.
func (res Result) relativeTo(runDir string) (Result, error) {
	out := res
	out.Cells = make([]CellResult, len(res.Cells))
	for i, c := range res.Cells {
		var err error
		if out.Cells[i], err = c.relativeTo(runDir); err != nil {
			return res, err
		}
	}
	out.Repeats = append([]RepeatSummary(nil), res.Repeats...)
	for i, s := range out.Repeats {
		if s.FirstFailure != nil {
			f := *s.FirstFailure
			out.Repeats[i].FirstFailure = &f
		}
	}
	if err := Relative(runDir, out.paths()...); err != nil {
		return res, err
	}
	return out, nil
}

// relativeTo is c with its folders relative to runDir.
func (c CellResult) relativeTo(runDir string) (CellResult, error) {
	if err := Relative(runDir, c.paths()...); err != nil {
		return c, err
	}
	return c, nil
}

// Resolve makes the folders results.json stored relative to the run
// folder runDir paths again (the run's own is runDir); absolute ones,
// stored before, stay as they are.
func (res *Result) Resolve(runDir string) {
	for i := range res.Cells {
		res.Cells[i].Resolve(runDir)
	}
	ResolvePaths(runDir, res.paths()...)
}

// Resolve is Result.Resolve for a cell's results.json.
func (c *CellResult) Resolve(runDir string) {
	ResolvePaths(runDir, c.paths()...)
}

// paths are the run's own folders: its own and its repeats' first failures.
func (res *Result) paths() []*string {
	ps := []*string{&res.Dir}
	for _, s := range res.Repeats {
		if s.FirstFailure != nil {
			ps = append(ps, &s.FirstFailure.Dir)
		}
	}
	return ps
}

// paths are a cell's folders: its own and its cluster's.
func (c *CellResult) paths() []*string { return []*string{&c.Dir, &c.Cluster.Dir} }

// Relative rewrites each path relative to base ("." for base itself), in
// the slashes of any machine; an empty one stays empty.
func Relative(base string, paths ...*string) error {
	absBase, err := filepath.Abs(base)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(absBase, abs)
		if err != nil {
			return fmt.Errorf("%s relative to %s: %w", *p, base, err)
		}
		*p = filepath.ToSlash(rel)
	}
	return nil
}

// ResolvePaths joins each relative path to base; absolute ones (stored
// before paths were relative) and empty ones stay as they are.
func ResolvePaths(base string, paths ...*string) {
	for _, p := range paths {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(base, filepath.FromSlash(*p))
		}
	}
}
