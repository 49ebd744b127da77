package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Unreadable is the verdict of a row whose run folder could not be read.
const Unreadable = "unreadable"

// Row is one run of the store as the index lists it.
type Row struct {
	ID       string    // the run folder's name
	Date     time.Time // when the run started; zero when unknown
	Workload string
	Releases []string
	Faults   []string // the --nemesis values, as given
	Seeds    []uint64 // the run's seed, then every other seed its cells ran with
	Runs     int      // --runs (1 without)
	// Verdict is the run's verdict once its --expect excused what it
	// expected (record.EffectiveVerdict), Running, or Unreadable.
	Verdict string
	Note    string // why unreadable, cut short, or excused
	Cells   []Tally
	// Report is the page to link, relative to the store: the run's
	// report.html, else its folder.
	Report    string
	HasReport bool
}

// Tally is how one cell of a run fared over its repeats: the runs that
// found an anomaly (invalid) over all runs, as record.RepeatSummary counts
// them.
type Tally struct {
	Key    CellKey
	Name   string // the cell's name without its repeat
	Runs   int
	Failed int
	// Decided counts valid and invalid runs: with none, the rate says
	// nothing (every run was unknown or an error).
	Decided int
}

// Rate is Failed over Runs (0 without runs).
func (t Tally) Rate() float64 {
	if t.Runs == 0 {
		return 0
	}
	return float64(t.Failed) / float64(t.Runs)
}

// CellKey is what makes a cell the same cell across runs: a trend line.
type CellKey struct {
	Workload  string
	Release   string
	Fault     string
	Tag       string // the settings that set it apart, "" when none
	DirectGet bool
}

// Label is how the trend's legend names the cell.
func (k CellKey) Label() string {
	parts := []string{k.Workload, k.Release, k.Fault}
	if k.Tag != "" {
		parts = append(parts, k.Tag)
	}
	dg := "direct-get-off"
	if k.DirectGet {
		dg = "direct-get-on"
	}
	return strings.Join(append(parts, dg), " · ")
}

// runID is how run/ names run folders: a UTC time, the seed, a suffix
// when two runs started in the same second.
var runID = regexp.MustCompile(`^(\d{8}T\d{6}Z)-s\d+(-\d+)?$`)

// RunDirs are the names of store's run folders, in name order: those
// named as run/ names them, or holding a run's files; a hunt's findings/,
// the latest link and other files are left out. A store that cannot be
// listed, or that is itself a run folder, is an error.
func RunDirs(store string) ([]string, error) {
	entries, err := os.ReadDir(store)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(store, record.SpecFile)); err == nil {
		return nil, fmt.Errorf("%s is a run folder (it holds %s); give the store that holds the runs", store, record.SpecFile)
	}
	var ids []string
	for _, e := range entries {
		if isRunDir(store, e) {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}

// IDDate is when the run named id started, as run/ names its folders
// (20260301T020000Z-s11); zero for a folder named otherwise.
func IDDate(id string) time.Time {
	if m := runID.FindStringSubmatch(id); m != nil {
		t, _ := time.Parse("20060102T150405Z", m[1])
		return t
	}
	return time.Time{}
}

// isRunDir says whether the store's entry name is a run folder: one named
// as run/ names them, or one holding a run's files. Anything else (a
// hunt's findings/, the latest link) is not listed.
func isRunDir(store string, e os.DirEntry) bool {
	if !e.IsDir() || e.Name() == "latest" {
		return false
	}
	if runID.MatchString(e.Name()) {
		return true
	}
	for _, f := range []string{record.ResultFile, record.SpecFile} {
		if _, err := os.Stat(filepath.Join(store, e.Name(), f)); err == nil {
			return true
		}
	}
	return false
}

// readRow reads one run folder. It never fails: what cannot be read is a
// row saying why.
func readRow(store, id string) Row {
	dir := filepath.Join(store, id)
	row := Row{ID: id, Report: id + "/", Runs: 1}
	row.Date = IDDate(id)
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		row.Report, row.HasReport = id+"/report.html", true
	}
	res, partial, err := ReadRun(dir)
	if err != nil {
		// The folder is the row's link already: name its files alone.
		row.Verdict, row.Note = Unreadable, strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
		return row
	}
	row.fill(res)
	switch {
	case partial:
		row.Verdict, row.Note = inProgress(dir, id, time.Now())
	case len(res.Cells) == 0:
		row.Verdict = string(res.Verdict)
	default:
		row.Verdict, row.Note = judge(res)
	}
	return row
}

// ReadRun reads the run folder dir's results.json, filling from run.json
// and the cells' own results.json what it lacks (a run cut short has only
// those; a trimmed one may keep its cells apart). partial: no
// results.json.
func ReadRun(dir string) (res record.Result, partial bool, err error) {
	res, err = record.ReadResult(dir)
	partial = errors.Is(err, os.ErrNotExist)
	if err != nil && !partial {
		return res, false, err
	}
	b, specErr := os.ReadFile(filepath.Join(dir, record.SpecFile))
	switch {
	case partial && specErr != nil:
		return res, true, fmt.Errorf("neither %s nor %s: not a run folder", record.ResultFile, record.SpecFile)
	case specErr == nil && len(res.Spec.ServerVersions) == 0:
		spec, err := record.DecodeSpec(b)
		if err != nil {
			return res, partial, fmt.Errorf("%s: %w", record.SpecFile, err)
		}
		res.Spec = spec
		if res.Seed == 0 {
			res.Seed = spec.Seed
		}
	}
	if len(res.Cells) == 0 {
		for _, c := range res.Spec.Cells() {
			if cr, err := record.ReadCell(filepath.Join(dir, c.Name), dir); err == nil && cr.Name != "" {
				res.Cells = append(res.Cells, cr)
			}
		}
	}
	return res, partial, nil
}

// fill copies what the row shows of the run.
func (row *Row) fill(res record.Result) {
	if !res.StartedAt.IsZero() {
		row.Date = res.StartedAt.UTC()
	}
	row.Workload = record.StoredWorkload(res.Spec.Workload)
	row.Releases = res.Spec.ServerVersions
	row.Faults = res.Spec.Nemeses
	row.Runs = max(res.Spec.Runs, 1)
	row.Seeds = []uint64{res.Seed}
	at := map[CellKey]int{}
	for _, c := range res.Cells {
		if s := c.SeedOr(res.Seed); !slices.Contains(row.Seeds, s) {
			row.Seeds = append(row.Seeds, s)
		}
		k := CellKey{Workload: row.Workload, Release: c.ServerVersion, Fault: c.Nemesis, Tag: c.Tag, DirectGet: c.DirectGet}
		i, ok := at[k]
		if !ok {
			i, at[k] = len(row.Cells), len(row.Cells)
			name := c.Base
			if name == "" {
				name = c.Name
			}
			row.Cells = append(row.Cells, Tally{Key: k, Name: name})
		}
		t := &row.Cells[i]
		t.Runs++
		switch c.Verdict {
		case record.Invalid:
			t.Failed++
			t.Decided++
		case record.Valid:
			t.Decided++
		}
	}
}

// judge is the run's verdict under the expectations it recorded, and a
// note when they changed it.
func judge(res record.Result) (verdict, note string) {
	exps, err := record.ParseExpects(res.Spec.Expect)
	if err != nil {
		// An anomaly this binary does not know: the verdict as stored.
		return string(res.Verdict), fmt.Sprintf("--expect not applied: %v", err)
	}
	v := record.EffectiveVerdict(res, exps)
	if len(exps) > 0 && v != res.Verdict {
		return string(v), fmt.Sprintf("%s before --expect %s", res.Verdict, strings.Join(res.Spec.Expect, " "))
	}
	return string(v), ""
}

// Running is the verdict of a run still in progress: no results.json yet,
// and a live.json (record.LiveFile) rewritten within LiveStale.
const Running = "running"

// LiveStale is how old a run's live.json may be for the run to count as
// running: the run rewrites it every second, and its phases (a recovery
// wait, a read-back) write it at least at their start and end.
const LiveStale = 2 * time.Minute

// inProgress judges a run folder without results.json: running, when its
// live.json says so and is fresh; else an error, interrupted or killed.
func inProgress(dir, id string, now time.Time) (verdict, note string) {
	l, ok, err := record.ReadLive(dir)
	switch {
	case err != nil || !ok || l.Done:
		return string(record.Error), "no results.json: the run was interrupted or is still running"
	case now.Sub(l.Updated) > LiveStale:
		return string(record.Error), fmt.Sprintf("no results.json, and its live.json stopped at %s (%s of %s): the run was interrupted or killed",
			l.Updated.UTC().Format("15:04:05"), l.Phase, l.Cell)
	}
	return Running, fmt.Sprintf("in progress: %s of %s; chaos serve follows it at /live?run=%s", l.Phase, l.Cell, id)
}
