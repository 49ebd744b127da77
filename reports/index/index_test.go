package index

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// The fixture store (testdata/nightly) holds three nightlies of one matrix
// run with --runs 2 (s11..s13), a Direct Get control started in the same
// second as s13 whose stale reads are expected (s14), a run cut short
// (s15: run.json and one finished cell), a results.json that does not
// decode (s16), a folder named as a run holding neither file (s17), a run
// of the oldest results.json shape in a folder named otherwise
// (old-shape), and what is not a run: findings/, notes.txt, latest.
const store = "testdata/nightly"

func init() {
	// kv-update's known anomaly, in the names its package registers it
	// under: this package imports no workload, but the browser test's
	// helpers link kv-update, which registers its own.
	if slices.Contains(record.KnownAnomalyNames(), "stale-reads") {
		return
	}
	record.RegisterAnomaly(record.KnownAnomaly{
		Name:     "stale-reads",
		Explains: func(_ record.Checks, check string) bool { return check == "stale-read" },
		Found:    func(m record.Checks) bool { return m.Count("stale-read", "stale_reads") > 0 },
		Witness:  "stale-read",
	})
}

// cellsText says a row's tallies as name=failed/runs/decided.
func cellsText(r Row) string {
	var parts []string
	for _, t := range r.Cells {
		parts = append(parts, fmt.Sprintf("%s=%d/%d/%d", t.Name, t.Failed, t.Runs, t.Decided))
	}
	return strings.Join(parts, " ")
}

func TestBuildRows(t *testing.T) {
	ix, err := Build(store)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range ix.Rows {
		ids = append(ids, r.ID)
	}
	// Newest first; the tie of s13 and s14 by id; undated last.
	wantIDs := []string{"20260306T020000Z-s17", "20260305T020000Z-s16", "20260304T020000Z-s15", "20260303T020000Z-s14",
		"20260303T020000Z-s13", "20260302T020000Z-s12", "20260301T020000Z-s11", "old-shape"}
	if !slices.Equal(ids, wantIDs) {
		t.Fatalf("rows %q\nwant %q", ids, wantIDs)
	}
	byID := map[string]Row{}
	for _, r := range ix.Rows {
		byID[r.ID] = r
	}
	tests := []struct {
		id, verdict, note, workload, releases, faults, seeds, cells, report string
		runs                                                                int
		date                                                                string
	}{
		{id: "20260301T020000Z-s11", verdict: "invalid", workload: "kv-update", releases: "v2.15.3", faults: "kill,partition-leader",
			seeds: "11 1101 1102", cells: "kill_direct-get-off=0/2/2 partition-leader_direct-get-off=1/2/2",
			report: "20260301T020000Z-s11/report.html", runs: 2, date: "2026-03-01T02:00:00Z"},
		{id: "20260303T020000Z-s13", verdict: "unknown", workload: "kv-update", releases: "v2.15.4", faults: "kill,partition-leader",
			seeds: "13 1301 1302", cells: "kill_direct-get-off=0/2/2 partition-leader_direct-get-off=0/2/1",
			report: "20260303T020000Z-s13/report.html", runs: 2, date: "2026-03-03T02:00:00Z"},
		// The expected stale reads are excused; the note says what was.
		{id: "20260303T020000Z-s14", verdict: "valid", note: "invalid before --expect direct-get-on=stale-reads", workload: "kv-update",
			releases: "v2.15.4", faults: "kill", seeds: "14", cells: "direct-get-off=0/1/1 direct-get-on=1/1/1",
			report: "20260303T020000Z-s14/report.html", runs: 1, date: "2026-03-03T02:00:00Z"},
		// Cut short: a harness error with the cell that finished; no
		// report.html, so the link is the folder.
		{id: "20260304T020000Z-s15", verdict: "error", note: "no results.json", workload: "kv-update", releases: "v2.15.4",
			faults: "kill", seeds: "15", cells: "direct-get-off=0/1/1", report: "20260304T020000Z-s15/", runs: 1, date: "2026-03-04T02:00:00Z"},
		// Unreadable rows keep the date of their name and say why.
		{id: "20260305T020000Z-s16", verdict: Unreadable, note: "results.json: unexpected end of JSON input",
			report: "20260305T020000Z-s16/", runs: 1, date: "2026-03-05T02:00:00Z"},
		{id: "20260306T020000Z-s17", verdict: Unreadable, note: "neither results.json nor run.json",
			report: "20260306T020000Z-s17/", runs: 1, date: "2026-03-06T02:00:00Z"},
		// The oldest shape: no spec.workload (kv-update), no started_at.
		{id: "old-shape", verdict: "valid", workload: "kv-update", releases: "v2.10.7", faults: "none", seeds: "1",
			cells: "direct-get-off=0/1/1", report: "old-shape/", runs: 1},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			r := byID[tc.id]
			var seeds []string
			for _, s := range r.Seeds {
				seeds = append(seeds, fmt.Sprint(s))
			}
			got := []string{r.Verdict, r.Workload, strings.Join(r.Releases, ","), strings.Join(r.Faults, ","),
				strings.Join(seeds, " "), cellsText(r), r.Report, fmt.Sprint(r.Runs)}
			want := []string{tc.verdict, tc.workload, tc.releases, tc.faults, tc.seeds, tc.cells, tc.report, fmt.Sprint(tc.runs)}
			if !slices.Equal(got, want) {
				t.Errorf("verdict, workload, releases, faults, seeds, cells, report, runs:\n got %q\nwant %q", got, want)
			}
			if (tc.note == "") != (r.Note == "") || !strings.Contains(r.Note, tc.note) {
				t.Errorf("note %q, want one holding %q", r.Note, tc.note)
			}
			if date := formatDate(r.Date); date != tc.date {
				t.Errorf("date %q, want %q", date, tc.date)
			}
		})
	}
}

// TestUnreadableNote: the note names the file within the run, not the
// path of the machine that built the index.
func TestUnreadableNote(t *testing.T) {
	r := readRow(store, "20260305T020000Z-s16")
	if want := "results.json: unexpected end of JSON input"; r.Note != want {
		t.Errorf("note %q, want %q", r.Note, want)
	}
}

func TestTimeTicks(t *testing.T) {
	at := func(day, hour int) time.Time { return time.Date(2026, 3, day, hour, 0, 0, 0, time.UTC) }
	tests := []struct {
		name   string
		lo, hi time.Time
		want   string
	}{
		{"nightlies: each midnight", at(1, 2), at(4, 2), "2026-03-02 2026-03-03 2026-03-04"},
		{"three weeks: every third midnight", at(1, 2), at(21, 2), "2026-03-02 2026-03-05 2026-03-08 2026-03-11 2026-03-14 2026-03-17 2026-03-20"},
		{"one day: six times", at(1, 0), at(2, 0), "03-01 00:00 03-01 04:48 03-01 09:36 03-01 14:24 03-01 19:12 03-02 00:00"},
		{"an hour", at(1, 10), at(1, 11), "10:00:00 10:12:00 10:24:00 10:36:00 10:48:00 11:00:00"},
	}
	for _, tc := range tests {
		var got []string
		for _, tick := range timeTicks(tc.lo, tc.hi) {
			got = append(got, tickLabel(tick, tc.hi.Sub(tc.lo)))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: ticks %q, want %q", tc.name, g, tc.want)
		}
	}
}

func formatDate(d time.Time) string {
	if d.IsZero() {
		return ""
	}
	return d.Format(time.RFC3339)
}

func TestTrend(t *testing.T) {
	ix, err := Build(store)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range ix.Series {
		var pts []string
		for _, p := range s.Points {
			pts = append(pts, fmt.Sprintf("%s:%d/%d", strings.TrimPrefix(p.RunID, "20260"), p.Tally.Failed, p.Tally.Runs))
		}
		got = append(got, s.Key.Label()+" = "+strings.Join(pts, " "))
	}
	// One line per cell, by label; points by date, the tie (s13, s14) by
	// run id. s13's partition-leader decided one of its two runs, so it is
	// a point; the undated old-shape run and the unreadable ones add none.
	want := []string{
		"kv-update · v2.15.3 · kill · direct-get-off = 301T020000Z-s11:0/2 302T020000Z-s12:1/2",
		"kv-update · v2.15.3 · partition-leader · direct-get-off = 301T020000Z-s11:1/2 302T020000Z-s12:2/2",
		"kv-update · v2.15.4 · kill · direct-get-off = 303T020000Z-s13:0/2 303T020000Z-s14:0/1 304T020000Z-s15:0/1",
		"kv-update · v2.15.4 · kill · direct-get-on = 303T020000Z-s14:1/1",
		"kv-update · v2.15.4 · partition-leader · direct-get-off = 303T020000Z-s13:0/2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("series:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTrendSkipsUndecided: a cell whose runs were all unknown or errors
// draws no point, since its rate of 0 would read as a pass.
func TestTrendSkipsUndecided(t *testing.T) {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	k := CellKey{Workload: "kv-update", Release: "v2.15.4", Fault: "kill"}
	rows := []Row{
		{ID: "a", Date: day, Cells: []Tally{{Key: k, Runs: 2, Decided: 0}}},
		{ID: "b", Date: day.Add(time.Hour), Cells: []Tally{{Key: k, Runs: 2, Failed: 1, Decided: 1}}},
		{ID: "c", Cells: []Tally{{Key: k, Runs: 1, Failed: 1, Decided: 1}}}, // undated
	}
	s := Trend(rows)
	if len(s) != 1 || len(s[0].Points) != 1 || s[0].Points[0].RunID != "b" {
		t.Errorf("trend %+v, want one series with run b alone", s)
	}
}

func TestJudgeUnknownAnomaly(t *testing.T) {
	res := record.Result{Verdict: record.Invalid, Spec: record.Spec{Expect: []string{"direct-get-on=ghosts"}},
		Cells: []record.CellResult{{Cell: record.Cell{Name: "direct-get-on"}, Verdict: record.Invalid}}}
	v, note := judge(res)
	if v != "invalid" || !strings.Contains(note, `unknown anomaly "ghosts"`) {
		t.Errorf("judge = %q, %q; want the stored invalid and a note naming the unknown anomaly", v, note)
	}
}

func TestHTML(t *testing.T) {
	ix, err := Build(store)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ix.HTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(page, -1)) }
	checks := []struct {
		what string
		re   string
		n    int
	}{
		{"rows", `<tr data-filterable`, len(ix.Rows)},
		{"lines", `<g class="series"`, len(ix.Series)},
		{"legend entries", `<li data-filterable`, len(ix.Series)},
		{"dots", `<circle `, 2 + 2 + 3 + 1 + 1},
		{"filters", `<select data-filter="(workload|release|fault|verdict)"`, 4},
		{"release options", `<option>v2\.1[05]\.\d+</option>`, 3},
		{"verdict options", `<option>(error|invalid|unknown|unreadable|valid)</option>`, 5},
		{"links to reports", `<a href="20260303T020000Z-s14/report.html">`, 1},
		{"links to folders", `<a href="20260304T020000Z-s15/">`, 1},
		{"releases as a list", `data-release="\[&#34;v2.15.3&#34;\]"`, 2 + 2 + 2}, // rows, lines, legend
		{"an unreadable row", `class="verdict v-unreadable">unreadable<br><span class="note">neither`, 1},
		{"a rate over --runs", `partition-leader_direct-get-off: 2/2 \(100 %\)`, 1},
		{"anything fetched", `(src|href)="(https?:)?//`, 0},
	}
	for _, c := range checks {
		if got := count(c.re); got != c.n {
			t.Errorf("%s: %d matches of %s, want %d", c.what, got, c.re, c.n)
		}
	}
}

func TestBuildRefuses(t *testing.T) {
	for _, dir := range []string{"testdata/no-such-store", filepath.Join(store, "20260301T020000Z-s11")} {
		if _, err := Build(dir); err == nil {
			t.Errorf("Build(%s) = nil error, want one", dir)
		}
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	CopyRun(t, filepath.Join(store, "20260301T020000Z-s11"), dir)
	CopyRun(t, filepath.Join(store, "20260305T020000Z-s16"), dir)
	ix, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Rows) != 2 || !bytes.Contains(b, []byte("20260301T020000Z-s11/report.html")) || !bytes.Contains(b, []byte("20260305T020000Z-s16/")) {
		t.Errorf("index.html of %d rows lacks a run:\n%s", len(ix.Rows), b)
	}
}

// CopyRun copies the run folder src (regular files only) into the store
// dst, under its own name.
func CopyRun(t *testing.T, src, dst string) {
	t.Helper()
	root := filepath.Join(dst, filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		switch {
		case d.IsDir():
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRunInProgress: a run folder without results.json is running while
// its live.json is fresh and not done, with a pointer to chaos serve's
// /live; a stale or finished live.json, or none, is an error as before.
func TestRunInProgress(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name    string
		live    *record.Live
		age     time.Duration
		verdict string
		note    string
	}{
		{"fresh", &record.Live{Cell: "direct-get-off", Phase: "workload"}, 0, Running, "in progress: workload of direct-get-off; chaos serve follows it at /live?run=r"},
		{"stale", &record.Live{Cell: "direct-get-off", Phase: "workload"}, LiveStale + time.Second, string(record.Error), "its live.json stopped at"},
		{"done", &record.Live{Phase: "done", Done: true}, 0, string(record.Error), "interrupted or is still running"},
		{"none", nil, 0, string(record.Error), "interrupted or is still running"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.live != nil {
				if err := record.WriteLive(dir, *c.live); err != nil {
					t.Fatal(err)
				}
			}
			v, note := inProgress(dir, "r", now.Add(c.age))
			if v != c.verdict || !strings.Contains(note, c.note) {
				t.Fatalf("%s %q, want %s with %q", v, note, c.verdict, c.note)
			}
		})
	}
}
