package releases

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// fakeStore copies stored runs into one store: findings' three real runs
// (v2.14.9 lost head, v2.15.3 failed write applied, v2.15.3 clean) and
// index's hand-written nightlies with --runs 2 (s11, s12 on v2.15.3, s13
// on v2.15.4), and a run cut short (s15).
func fakeStore(t *testing.T) string {
	t.Helper()
	store := filepath.Join(t.TempDir(), "store")
	src := map[string]string{
		"20261201T162253Z-s18": "../../findings/testdata/lost-stream-head",
		"20261201T163346Z-s42": "../../findings/testdata/failed-write-applied",
		"20261201T163135Z-s7":  "../../findings/testdata/clean",
		"20260301T020000Z-s11": "../index/testdata/nightly",
		"20260302T020000Z-s12": "../index/testdata/nightly",
		"20260303T020000Z-s13": "../index/testdata/nightly",
		"20260304T020000Z-s15": "../index/testdata/nightly",
	}
	for id, dir := range src {
		if err := os.CopyFS(filepath.Join(store, id), os.DirFS(filepath.Join(dir, id))); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

func find(rows []Row, run, cell string) (Row, bool) {
	i := slices.IndexFunc(rows, func(r Row) bool { return r.Run == run && r.Cell == cell })
	if i < 0 {
		return Row{}, false
	}
	return rows[i], true
}

func slugs(r Row) []string {
	var out []string
	for _, c := range r.Classes {
		out = append(out, c.Slug)
	}
	return out
}

func TestCollect(t *testing.T) {
	store := fakeStore(t)
	rows, notes, err := Collect([]string{store})
	if err != nil {
		t.Fatal(err)
	}
	// s18, s42, s7: one cell each; s11, s12, s13: 2 faults x 2 runs each;
	// s15 has no results.json.
	if len(rows) != 3+4+4+4 {
		t.Errorf("%d rows, want 15", len(rows))
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "20260304T020000Z-s15") {
		t.Errorf("notes %q, want one for the run cut short", notes)
	}
	for _, tc := range []struct {
		run, cell, release, scenario, rerun, verdict string
		repeat                                       int
		seed                                         uint64
		classes                                      []string
	}{
		{"20261201T163346Z-s42", "direct-get-off", "v2.15.3",
			"chaos run --nemesis-interval=4s --runtime=docker --time-limit=20s --direct-get=off --nemesis=partition-leader",
			"chaos run --nemesis-interval=4s --runtime=docker --time-limit=20s --direct-get=off --nemesis=partition-leader --server-version=v2.15.3 --seed=42",
			"invalid", 0, 42, []string{"failed-write-applied", "spurious-wrong-last-sequence", "not-linearizable"}},
		{"20261201T162253Z-s18", "direct-get-off", "v2.14.9",
			"chaos run --nemesis-interval=5s --runtime=docker --time-limit=1m0s --direct-get=off --nemesis=pause+kill,kill",
			"chaos run --nemesis-interval=5s --runtime=docker --time-limit=1m0s --direct-get=off --nemesis=pause+kill,kill --server-version=v2.14.9 --seed=18",
			"invalid", 0, 18, []string{"lost-stream-head", "bad-read"}},
		{"20261201T163135Z-s7", "direct-get-off", "v2.15.3",
			"chaos run --nemesis-interval=3s --runtime=docker --time-limit=8s --direct-get=off --nemesis=kill",
			"chaos run --nemesis-interval=3s --runtime=docker --time-limit=8s --direct-get=off --nemesis=kill --server-version=v2.15.3 --seed=7",
			"valid", 0, 7, nil},
		// Two --nemesis cells of one run: each its own scenario.
		{"20260302T020000Z-s12", "kill_direct-get-off_run-2", "v2.15.3", "chaos run --direct-get=off --nemesis=kill",
			"chaos run --direct-get=off --nemesis=kill --server-version=v2.15.3 --seed=1202", "valid", 2, 1202, nil},
		{"20260302T020000Z-s12", "partition-leader_direct-get-off_run-2", "v2.15.3", "chaos run --direct-get=off --nemesis=partition-leader",
			"chaos run --direct-get=off --nemesis=partition-leader --server-version=v2.15.3 --seed=1202", "invalid", 2, 1202, []string{"linearizable"}},
	} {
		r, ok := find(rows, tc.run, tc.cell)
		if !ok {
			t.Errorf("no row for %s/%s", tc.run, tc.cell)
			continue
		}
		got := []any{r.Release, r.Scenario, r.Rerun, r.Verdict, r.Repeat, r.Seed, strings.Join(slugs(r), ",")}
		want := []any{tc.release, tc.scenario, tc.rerun, tc.verdict, tc.repeat, tc.seed, strings.Join(tc.classes, ",")}
		if !slices.Equal(got, want) {
			t.Errorf("%s/%s:\n got %q\nwant %q", tc.run, tc.cell, got, want)
		}
		if r.Workload != "kv-update" || r.Date.IsZero() {
			t.Errorf("%s/%s: workload %q, date %v", tc.run, tc.cell, r.Workload, r.Date)
		}
	}
	if r, _ := find(rows, "20261201T163346Z-s42", "direct-get-off"); r.Classes[0].Title != "A write answered with an error was applied" {
		t.Errorf("class titled %q, want its registered title", r.Classes[0].Title)
	}
}

// A cell's scenario is its own: the run's list of --direct-get or
// --nemesis cells pinned to the cell's values; release, seed, repeats,
// store, shard and expectations dropped.
func TestScenario(t *testing.T) {
	cell := func(dg bool, nemesis string) record.CellResult {
		return record.CellResult{Cell: record.Cell{DirectGet: dg, Nemesis: nemesis, ServerVersion: "v2.15.3"}}
	}
	for _, tc := range []struct {
		command string
		c       record.CellResult
		want    string
	}{
		{"chaos run --direct-get=both --nemesis=kill --nemesis=pause --server-version=v2.14.9 --server-version=v2.15.3 --runs=3 --store=s --shard=1/2 --until-fail=true --bisect=true --expect=direct-get-on=stale-reads --seed=5",
			cell(true, "pause"), "chaos run --direct-get=on --nemesis=pause"},
		{"chaos run --direct-get=both --time-limit=20s --seed=5", cell(false, "none"), "chaos run --time-limit=20s --direct-get=off --nemesis=none"},
		{"chaos run --server-source='/my src' --nemesis=a,b --seed=5", cell(false, "a,b"), "chaos run --direct-get=off --nemesis=a,b"},
		{"", cell(false, "none"), ""},
	} {
		if got := Scenario(tc.command, tc.c); got != tc.want {
			t.Errorf("Scenario(%q):\n got %q\nwant %q", tc.command, got, tc.want)
		}
	}
}

// row is a synthetic ledger row.
func row(run, scenario, release, verdict string, classes ...string) Row {
	r := Row{Run: run, Date: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Workload: "kv-update", Release: release,
		Scenario: scenario, Cell: "direct-get-off", Seed: 1, Verdict: verdict}
	for _, c := range classes {
		r.Classes = append(r.Classes, Class{Slug: c, Title: "title of " + c})
	}
	return r
}

// k of n: a run that showed a class counts once for it, whatever else it
// showed; a clean run only in n; an unknown or error run in neither.
func TestCountOf(t *testing.T) {
	rows := []Row{
		row("r1", "A", "v2.15.3", "invalid", "stale-read", "lost-write"),
		row("r2", "A", "v2.15.3", "valid"),
		row("r3", "A", "v2.15.3", "unknown"),
		row("r4", "A", "v2.14.9", "invalid", "lost-write"),
		row("r5", "B", "v2.15.3", "valid"),
		row("r6", "A", "v2.15.3", "error"),
	}
	m := NewMatrix(rows)
	for _, tc := range []struct {
		slug, release string
		want          Count
	}{
		{"stale-read", "v2.15.3", Count{Showed: 1, Runs: 2}},
		{"stale-read", "v2.14.9", Count{Showed: 0, Runs: 1}},
		{"lost-write", "v2.15.3", Count{Showed: 1, Runs: 2}},
		{"lost-write", "v2.14.9", Count{Showed: 1, Runs: 1}},
		{"lost-write", "v2.12.0", Count{}},
	} {
		if got := CountOf(m.ShowedBy(tc.slug), tc.release, tc.slug); got != tc.want {
			t.Errorf("%s on %s: %+v, want %+v", tc.slug, tc.release, got, tc.want)
		}
	}
	if clean := m.Clean(); len(clean) != 1 || clean[0].Scenario != "B" {
		t.Errorf("clean scenarios %+v, want B alone", clean)
	}
	page := string(Render(rows))
	for _, want := range []string{
		"| anomaly class | v2.14.9 | v2.15.3 |",
		"| [title of lost-write](#title-of-lost-write) (`lost-write`) | 1/1 | 1/2 |",
		"| [title of stale-read](#title-of-stale-read) (`stale-read`) | 0/1 | 1/2 |",
		"| [no anomaly](#scenarios-that-showed-no-anomaly) (1 scenarios) | – | 0/1 |",
		"| v2.15.3 | 1 of 2 | 1 | 2026-03-01 |",
		"| 2.14 | v2.14.9 | 1 |", "| 2.10 | not run | – |",
		"```sh\nA --server-version=<release>\n```",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestSortReleases(t *testing.T) {
	vs := []string{"v2.15.3", "1787eee035", "v2.10.7", "v2.15.10", "bin.0123", "v2.14.9"}
	SortReleases(vs)
	if want := []string{"v2.10.7", "v2.14.9", "v2.15.3", "v2.15.10", "1787eee035", "bin.0123"}; !slices.Equal(vs, want) {
		t.Errorf("%q, want %q", vs, want)
	}
}

// Collecting a store twice, or a store and the ledger written from it,
// gives each cell run once; a row read again replaces the one before.
func TestMergeDedupes(t *testing.T) {
	store := fakeStore(t)
	first, _, err := Collect([]string{store})
	if err != nil {
		t.Fatal(err)
	}
	ledger := filepath.Join(t.TempDir(), "releases.jsonl")
	if err := WriteLedger(ledger, Merge(nil, first)); err != nil {
		t.Fatal(err)
	}
	before, err := ReadLedger(ledger)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := Collect([]string{store, store})
	merged := Merge(before, again)
	if len(merged) != len(first) {
		t.Errorf("%d rows after merging a store read twice into its ledger, want %d", len(merged), len(first))
	}
	changed := slices.Clone(first[:1])
	changed[0].Verdict = "unknown"
	if got := Merge(merged, changed); len(got) != len(first) || got[0].Verdict != "unknown" {
		t.Errorf("a row read again did not replace the one before: %d rows, verdict %q", len(got), got[0].Verdict)
	}
}

// The same rows, in any order or read back from the ledger, give the
// same page byte for byte.
func TestRenderIsDeterministic(t *testing.T) {
	rows, _, err := Collect([]string{fakeStore(t)})
	if err != nil {
		t.Fatal(err)
	}
	page := Render(rows)
	reversed := slices.Clone(rows)
	slices.Reverse(reversed)
	ledger := filepath.Join(t.TempDir(), "releases.jsonl")
	if err := WriteLedger(ledger, rows); err != nil {
		t.Fatal(err)
	}
	read, err := ReadLedger(ledger)
	if err != nil {
		t.Fatal(err)
	}
	for name, rs := range map[string][]Row{"reversed": reversed, "read back": read} {
		if got := Render(rs); !bytes.Equal(got, page) {
			t.Errorf("%s rows render another page", name)
		}
	}
	for _, want := range []string{
		"newest run started 2026-12-01",
		"| [A write answered with an error was applied](#a-write-answered-with-an-error-was-applied) (`failed-write-applied`) | – | 1/1 | – |",
		// v2.15.4: s13's four runs, one of them unknown.
		"| [linearizable](#linearizable) (`linearizable`) | – | 4/8 | 0/3 |",
		"Newest run that showed it: 20261201T162253Z-s18, cell `direct-get-off` on v2.14.9 (seed 18)",
	} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
	if empty := string(Render(nil)); !strings.Contains(empty, "The ledger is empty") || strings.Contains(empty, "## Summary") {
		t.Errorf("an empty ledger's page:\n%s", empty)
	}
}

func TestRefusals(t *testing.T) {
	store := fakeStore(t)
	for _, bad := range []string{filepath.Join(t.TempDir(), "missing"), filepath.Join(store, "20261201T163135Z-s7")} {
		if _, _, err := Collect([]string{bad}); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("Collect(%s): %v, want a one-line error", bad, err)
		}
	}
	ledger := filepath.Join(t.TempDir(), "releases.jsonl")
	os.WriteFile(ledger, []byte("{\"run\":\"a\"}\nnot json\n"), 0o644)
	if _, err := ReadLedger(ledger); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("a bad ledger line: %v, want an error naming line 2", err)
	}
	if rows, err := ReadLedger(filepath.Join(t.TempDir(), "none.jsonl")); err != nil || rows != nil {
		t.Errorf("no ledger: %v, %v; want an empty ledger", rows, err)
	}
}
