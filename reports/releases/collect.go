package releases

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports/index"
)

// scenarioDropped are the flags a scenario leaves out: those that pick the
// release (the matrix's columns), the seed and the repeats (the runs a
// rate counts), the store, the shard, and what the run expected.
var scenarioDropped = []string{
	"--server-version", "--server-source", "--server-bin", "--commits", "--bisect",
	"--seed", "--same-seed", "--runs", "--until-fail", "--store", "--shard", "--expect",
}

// Scenario is the command of the cell c of a run whose command is
// command, the same for its runs on every release and seed: see
// Row.Scenario. A run that recorded no command has none.
func Scenario(command string, c record.CellResult) string {
	if command == "" {
		return ""
	}
	return record.DropFlags(Pinned(command, c), scenarioDropped...)
}

// Pinned is command with the cell's own --direct-get and --nemesis in
// place of the run's (which may have named several cells), after its other
// flags.
func Pinned(command string, c record.CellResult) string {
	s := record.DropFlags(command, "--direct-get", "--nemesis")
	s += " --direct-get=" + record.OnOff(c.DirectGet)
	if c.Nemesis != "" {
		s += " --nemesis=" + record.ShellQuote(c.Nemesis)
	}
	return s
}

// Collect reads every run folder of each store into rows, one per cell
// run. A store that is not a folder, or is a run folder, is an error;
// a run folder that cannot be read, or that has no results.json yet
// (running, or cut short), is left out with a note saying why.
func Collect(stores []string) (rows []Row, notes []string, err error) {
	for _, store := range stores {
		if fi, err := os.Stat(store); err != nil || !fi.IsDir() {
			return nil, nil, fmt.Errorf("%s is not a store folder (the folder holding the runs; chaos run --store writes one)", store)
		}
		ids, err := index.RunDirs(store)
		if err != nil {
			return nil, nil, err
		}
		for _, id := range ids {
			rs, note := collectRun(store, id)
			rows = append(rows, rs...)
			if note != "" {
				notes = append(notes, note)
			}
		}
	}
	Sort(rows)
	return rows, notes, nil
}

// collectRun is the rows of one run folder, or a note saying why it has
// none.
func collectRun(store, id string) ([]Row, string) {
	dir := filepath.Join(store, id)
	res, partial, err := index.ReadRun(dir)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("%s left out: %v", dir, err)
	case partial:
		return nil, fmt.Sprintf("%s left out: no %s (running, or cut short)", dir, record.ResultFile)
	}
	date := res.StartedAt.UTC()
	if res.StartedAt.IsZero() {
		date = index.IDDate(id)
	}
	command := res.Command
	if command == "" {
		command = res.Spec.Command
	}
	rows := make([]Row, 0, len(res.Cells))
	for _, c := range res.Cells {
		r := Row{
			Run: id, Date: date, Workload: record.StoredWorkload(res.Spec.Workload),
			Release: c.ServerVersion, Scenario: Scenario(command, c), Tag: c.Tag,
			Cell: c.Name, Repeat: c.Repeat, Seed: c.SeedOr(res.Seed),
			Verdict: string(c.Verdict), Bisect: res.Bisect,
		}
		if command != "" {
			one := c
			one.Seed = r.Seed // a cell of a run without --runs keeps the run's
			r.Rerun = record.RerunOne(Pinned(command, c), one)
		}
		cellDir := filepath.Join(dir, c.Name) // as run/ stores it; c.Dir of an older run may name the machine's
		if _, err := os.Stat(cellDir); err != nil && c.Dir != "" {
			cellDir = c.Dir
		}
		if c.Verdict == record.Invalid {
			r.Classes = classesOf(cellDir, c)
		}
		if _, err := os.Stat(filepath.Join(cellDir, findings.FileName)); err == nil {
			r.Finding = filepath.ToSlash(filepath.Join(cellDir, findings.FileName))
		}
		rows = append(rows, r)
	}
	return rows, ""
}

// classesOf are the classes of an invalid cell (findings.CellClasses),
// each titled as its class is registered (a finding's own title may carry
// the cell's counts), else by its slug: one title per class whatever the
// run.
func classesOf(cellDir string, c record.CellResult) []Class {
	titles := map[string]string{}
	for _, cl := range findings.Classes() {
		titles[cl.Slug] = cl.Title
	}
	var out []Class
	for _, ref := range findings.CellClasses(cellDir, c) {
		t := titles[ref.Class]
		if t == "" {
			t = ref.Class
		}
		if !slices.ContainsFunc(out, func(o Class) bool { return o.Slug == ref.Class }) {
			out = append(out, Class{Slug: ref.Class, Title: t})
		}
	}
	return out
}
