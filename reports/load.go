package reports

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
)

// Run is a stored run as the report reads it: results.json, plus what the
// report finds next to it.
type Run struct {
	Dir    string // the run folder on disk
	Result record.Result
	// Partial is set when results.json was missing and the result was put
	// together from run.json and the cells' own results.json.
	Partial bool
	// ClientVersion is nats.go's version: results.json's client_version
	// when the pipeline records it, else the report binary's own.
	ClientVersion       string
	ClientVersionSource string
	Expect              []record.Expectation // from results.json's spec.expect, if any
	Cells               []*Cell
	view                View // the workload's, nil for the generic page
}

// Cell is one cell's stored files.
type Cell struct {
	record.CellResult
	Rel       string  // folder, relative to the run folder
	Series    *Series // nil when history.jsonl is missing or unreadable
	SeriesErr string
	Memory    *Memory
	MemoryErr string
	// Events are what the cluster's watcher saw (cluster-events.jsonl; none when
	// the cell was not watched); EventsErr says why they could not be read.
	Events    []watch.Event
	EventsErr string
	// Data is what the workload's view read from the cell's own files (nil
	// without a view, or when they are missing); DataErr says why it could
	// not be read.
	Data    any
	DataErr string
}

// Load reads a run folder: results.json (or, for a run that was cut short,
// run.json and each cell's results.json) and every cell's history.
func Load(dir string) (*Run, error) {
	r := &Run{Dir: dir}
	res, err := record.ReadResult(dir)
	switch {
	case err == nil:
		r.Result = res
		r.ClientVersion = res.ClientVersion
		if r.ClientVersion != "" {
			r.ClientVersionSource = "recorded by the run"
		}
		for _, s := range res.Spec.Expect {
			if e, err := record.ParseExpect(s); err == nil {
				r.Expect = append(r.Expect, e)
			}
		}
	case errors.Is(err, os.ErrNotExist):
		if err := r.loadPartial(); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	if r.Result.ID == "" {
		r.Result.ID = filepath.Base(filepath.Clean(dir))
	}
	// The folder read, not the one the run was written to: a moved run's
	// files are found from the result alone (Headline reads catchup.json).
	r.Result.Dir = dir
	r.view = viewFor(r.Result.Spec.Workload)
	if r.ClientVersion == "" {
		r.ClientVersion, r.ClientVersionSource = buildClientVersion(), "of the binary that rendered this report; the run did not record it"
	}
	for _, cr := range r.Result.Cells {
		r.Cells = append(r.Cells, r.loadCell(cr))
	}
	return r, nil
}

// runOf is a run known by its result alone (Headline, JUnit): each cell's
// workload files are read from the cell's folder under res.Dir, else from
// the folder it recorded; histories are not read.
func runOf(res record.Result) *Run {
	r := &Run{Dir: res.Dir, Result: res, view: viewFor(res.Spec.Workload)}
	for _, cr := range res.Cells {
		c := &Cell{CellResult: cr}
		var dir string
		switch {
		case res.Dir != "" && cr.Name != "" && isDir(filepath.Join(res.Dir, cr.Name)):
			dir, c.Rel = filepath.Join(res.Dir, cr.Name), cr.Name
		case cr.Dir != "" && isDir(cr.Dir):
			dir = cr.Dir
		}
		r.loadData(dir, c)
		r.Cells = append(r.Cells, c)
	}
	return r
}

// loadPartial rebuilds a result from run.json and the cells' files: the
// run was interrupted hard, or is still going.
func (r *Run) loadPartial() error {
	b, err := os.ReadFile(filepath.Join(r.Dir, record.SpecFile))
	if err != nil {
		return fmt.Errorf("%s holds neither results.json nor run.json: not a run folder (%w)", r.Dir, err)
	}
	spec, err := record.DecodeSpec(b)
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(r.Dir, record.SpecFile), err)
	}
	r.Partial = true
	res := record.Result{ID: filepath.Base(filepath.Clean(r.Dir)), Dir: r.Dir, Command: spec.Command, Seed: spec.Seed,
		Runtime: spec.Runtime, Spec: spec, Verdict: record.Valid, Interrupted: true}
	for _, c := range spec.Cells() {
		cdir := filepath.Join(r.Dir, c.Name)
		if _, err := os.Stat(cdir); err != nil {
			continue
		}
		if cr, err := record.ReadCell(cdir, r.Dir); err == nil && cr.Name != "" {
			res.Cells = append(res.Cells, cr)
		} else {
			hint := "the history on disk can be checked with chaos check"
			if v, ok := viewFor(spec.Workload).(cutShort); ok {
				hint = v.CutShort()
			}
			why := "no results.json: the run was interrupted or is still running; " + hint
			res.Cells = append(res.Cells, record.CellResult{Cell: c, Label: c.Label(), Dir: cdir, Verdict: record.Error, Error: why})
		}
		res.Verdict = record.Worse(res.Verdict, res.Cells[len(res.Cells)-1].Verdict)
	}
	r.Result = res
	return nil
}

func (r *Run) loadCell(cr record.CellResult) *Cell {
	c := &Cell{CellResult: cr, Rel: cr.Name}
	if c.Rel == "" || !isDir(filepath.Join(r.Dir, c.Rel)) {
		if b := filepath.Base(cr.Dir); cr.Dir != "" && isDir(filepath.Join(r.Dir, b)) {
			c.Rel = b
		}
	}
	if c.Rel == "" {
		return c
	}
	cdir := filepath.Join(r.Dir, c.Rel)
	r.loadData(cdir, c)
	s, err := ReadSeries(filepath.Join(cdir, "history.jsonl"))
	switch {
	case err == nil:
		c.Series = s
	case errors.Is(err, os.ErrNotExist):
		c.SeriesErr = "no history.jsonl"
	default:
		c.SeriesErr = err.Error()
	}
	// Only a watched cell has the watcher's cluster-events.jsonl (the catch-up
	// workload writes one of its own).
	if cr.Watch != nil {
		if c.Events, err = watch.ReadEvents(filepath.Join(cdir, watch.EventsFile)); err != nil {
			c.EventsErr = err.Error()
		}
	}
	if c.Memory != nil {
		return c
	}
	m, err := LoadMemory(cdir, cr)
	if err != nil {
		c.MemoryErr = err.Error()
	}
	c.Memory = m
	return c
}

// loadData has the view read the cell's own files.
func (r *Run) loadData(cellDir string, c *Cell) {
	if r.view == nil {
		return
	}
	if err := r.view.Load(cellDir, c); err != nil {
		c.DataErr = err.Error()
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// buildClientVersion is nats.go's version in this binary's build info.
func buildClientVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/nats-io/nats.go" {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}

// relFiles lists the files under rel/sub that match the glob, relative to
// dir, sorted.
func relFiles(dir, rel, glob string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, rel, glob))
	out := make([]string, 0, len(m))
	for _, p := range m {
		r, err := filepath.Rel(dir, p)
		if err == nil && !strings.HasPrefix(r, "..") {
			out = append(out, filepath.ToSlash(r))
		}
	}
	sort.Strings(out)
	return out
}
