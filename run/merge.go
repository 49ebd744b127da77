package run

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/internal/filecopy"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Merge joins the run folders of one run's shards (--shard I/N) into a new
// run folder under store (store/latest then points at it), as the run
// would have stored it on one machine: run.json without the shard, every
// cell folder copied, and results.json with the cells in the matrix's
// order, each cell's failure rate over its runs, the workload's checks
// across all the cells (a shard's saw only its own) and the verdict.
// Reports are the caller's, as after a run.
//
// Folders that are not every shard of one run, once each, are refused
// before anything is written, with an error wrapping ErrNotShards.
func Merge(store string, dirs []string) (record.Result, error) {
	shards, err := readShards(dirs)
	if err != nil {
		return record.Result{}, err
	}
	spec := shards[0].res.Spec
	spec.Shard, spec.Store = nil, store
	spec.Command = record.DropFlags(spec.Command, "--shard")
	if err := checkShards(spec, shards); err != nil {
		return record.Result{}, err
	}
	id, dir, err := newRunDir(store, spec.Seed, time.Now())
	if err != nil {
		return record.Result{}, fmt.Errorf("store: %w", err)
	}
	if err := record.WriteSpec(dir, spec); err != nil {
		return record.Result{}, err
	}
	res := record.Result{ID: id, Dir: dir, Command: spec.Command, Seed: spec.Seed, Spec: spec, Verdict: record.Valid}
	mergeRunFacts(&res, shards)
	if err := mergeCells(&res, shards); err != nil {
		return res, err
	}
	if spec.Runs > 1 {
		res.Repeats = summarizeRepeats(res.Cells, spec.Command, plannedRuns(spec.Cells()))
	}
	if w, err := workloads.Get(spec.Workload); err == nil {
		var dirs []string
		for _, c := range res.Cells {
			if c.Error == "" {
				dirs = append(dirs, c.Dir)
			}
		}
		if checks := CheckRun(w, dirs); len(checks) > 0 {
			res.Checks = checks
			res.Verdict = record.Worse(res.Verdict, record.VerdictOf(checks))
		}
	}
	return res, record.WriteResult(res)
}

// mergeRunFacts fills what the shards' machines said of themselves: the
// earliest start, and each runtime, client and Go version, joined by
// commas when the machines differed.
func mergeRunFacts(res *record.Result, shards []shardRun) {
	var rts, clients, gos []string
	for _, s := range shards {
		if res.StartedAt.IsZero() || s.res.StartedAt.Before(res.StartedAt) {
			res.StartedAt = s.res.StartedAt
		}
		rts, clients, gos = addNew(rts, s.res.Runtime), addNew(clients, s.res.ClientVersion), addNew(gos, s.res.GoVersion)
		res.Interrupted = res.Interrupted || s.res.Interrupted
	}
	res.Runtime, res.ClientVersion, res.GoVersion = strings.Join(rts, ","), strings.Join(clients, ","), strings.Join(gos, ",")
}

func addNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// mergeCells copies every shard's cell folders into res.Dir and adds
// their results in the matrix's order, their folders moved with them.
func mergeCells(res *record.Result, shards []shardRun) error {
	type held struct {
		c   record.CellResult
		dir string // the shard's run folder, which holds the cell's by name
	}
	byName := map[string]held{}
	for _, s := range shards {
		for _, c := range s.res.Cells {
			byName[c.Name] = held{c, s.dir}
		}
	}
	for _, u := range res.Spec.Cells() {
		h, ok := byName[u.Name]
		if !ok {
			continue // an interrupted shard did not reach it
		}
		c, src, dst := h.c, filepath.Join(h.dir, u.Name), filepath.Join(res.Dir, u.Name)
		// A cell whose folder could not be made has only its results.
		if _, err := os.Stat(src); err == nil {
			if err := copyTree(src, dst); err != nil {
				return fmt.Errorf("cell %s: %w", u.Name, err)
			}
		}
		c.Cluster.Dir = rebase(c.Cluster.Dir, c.Dir, dst)
		c.Dir = dst
		res.Cells = append(res.Cells, c)
		res.Verdict = record.Worse(res.Verdict, c.Verdict)
	}
	return nil
}

// rebase is p, a path under the folder from, under the folder to; any
// other path as it is.
func rebase(p, from, to string) string {
	if p == "" {
		return p
	}
	rel, err := filepath.Rel(from, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.Join(to, rel)
}

// copyTree copies the folder src to dst: folders, regular files and
// symbolic links as links. A copy, not a link: the report rewrites files
// in the merged folder, and the shards' folders stay as they ran.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			return filecopy.New(p, to, info.Mode().Perm())
		}
		return nil // a socket or a device: nothing a report reads
	})
}
