package kvupdateview

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

func TestHeadline(t *testing.T) {
	clean := reportstest.ChecksOpts{Gets: 50000}
	tests := []struct {
		name string
		res  record.Result
		want string
	}{
		{"Direct Get on stale, off clean", reportstest.ResultOf(
			reportstest.CellOf(true, "none", reportstest.ChecksOpts{Gets: 50000, Stale: 2807, RejStale: 2808}, ""),
			reportstest.CellOf(false, "none", clean, "")),
			"Direct Get on: 2,807 stale reads (5.6 % of reads), 2,808 updates rejected because of them; Direct Get off: none (all 6 checks passed)."},
		{"all valid", reportstest.ResultOf(reportstest.CellOf(true, "none", clean, ""), reportstest.CellOf(false, "none", clean, "")),
			"Direct Get on: none (all 6 checks passed); Direct Get off: none (all 6 checks passed)."},
		{"one stale read, singular", reportstest.ResultOf(reportstest.CellOf(true, "none", reportstest.ChecksOpts{Gets: 50000, Stale: 1, RejStale: 1}, "")),
			"Direct Get on: 1 stale read (0.002 % of reads), 1 update rejected because of them."},
		{"unknown only", reportstest.ResultOf(reportstest.CellOf(false, "none", reportstest.ChecksOpts{Gets: 100, LinUnknown: "time bound reached (60s)"}, "")),
			"Direct Get off: no anomaly found, but undecided: linearizability: time bound reached (60s)."},
		{"invalid and unknown", reportstest.ResultOf(reportstest.CellOf(true, "none", reportstest.ChecksOpts{Gets: 1000, Stale: 10, RejStale: 10, LinUnknown: "time bound"}, "")),
			"Direct Get on: 10 stale reads (1.0 % of reads), 10 updates rejected because of them, and undecided: linearizability."},
		{"harness error", reportstest.ResultOf(reportstest.CellOf(true, "none", clean, ""), reportstest.CellOf(false, "none", clean, "start cluster: docker: no such host\nmore")),
			"Direct Get on: none (all 6 checks passed); Direct Get off: did not run to the end: start cluster: docker: no such host."},
		{"spurious rejection without stale reads", reportstest.ResultOf(reportstest.CellOf(false, "none", reportstest.ChecksOpts{Gets: 100, RejSpurious10071: 2}, "")),
			"Direct Get off: no stale reads, but 2 updates rejected (10071) although nothing else wrote the key."},
		{"a spurious 10164 alone is no anomaly", reportstest.ResultOf(reportstest.CellOf(false, "none", reportstest.ChecksOpts{Gets: 100, RejSpurious: 2}, "")),
			"Direct Get off: none (all 6 checks passed)."},
		{"lost writes and no recovery", reportstest.ResultOf(reportstest.CellOf(false, "kill", reportstest.ChecksOpts{Gets: 100, LostWrites: 3, NotRecovered: true}, "")),
			"Direct Get off: no stale reads, but 3 acknowledged writes lost, and the cluster did not recover after the faults."},
		{"nemeses vary", reportstest.ResultOf(reportstest.CellOf(false, "none", clean, ""), reportstest.CellOf(false, "kill", reportstest.ChecksOpts{Gets: 9, Stale: 3, RejStale: 3}, "")),
			"Direct Get off without faults: none (all 6 checks passed); Direct Get off under kill: 3 stale reads (33 % of reads), 3 updates rejected because of them."},
		{"many cells name only the findings", reportstest.ResultOf(
			reportstest.CellOf(false, "a", clean, ""), reportstest.CellOf(false, "b", clean, ""), reportstest.CellOf(false, "c", clean, ""),
			reportstest.CellOf(false, "d", clean, ""), reportstest.CellOf(false, "e", reportstest.ChecksOpts{Gets: 10, LostWrites: 1}, "")),
			"Direct Get off under e: no stale reads, but 1 acknowledged write lost; the other 4 cells: none."},
		{"many cells all valid", reportstest.ResultOf(
			reportstest.CellOf(false, "a", clean, ""), reportstest.CellOf(false, "b", clean, ""), reportstest.CellOf(false, "c", clean, ""),
			reportstest.CellOf(false, "d", clean, ""), reportstest.CellOf(false, "e", clean, "")),
			"All 5 cells valid: no stale reads and no other anomaly (Direct Get off under a; Direct Get off under b; Direct Get off under c; Direct Get off under d; Direct Get off under e)."},
		{"interrupted before any cell", record.Result{Interrupted: true}, "The run was interrupted before any cell finished."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reports.Headline(tt.res); got != tt.want {
				t.Errorf("Headline:\n got  %q\n want %q", got, tt.want)
			}
			if got := strings.Join(reports.HeadlineParts(tt.res), " "); got != reports.Headline(tt.res) {
				t.Errorf("HeadlineParts joined = %q, not the headline", got)
			}
		})
	}
}

func TestRenderTestdataRun(t *testing.T) {
	dir := reportstest.UnpackKVRun(t)
	r, err := reports.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, reports.HTMLFile))
	want := []string{
		// The verdict in one sentence, at the top.
		"Direct Get on: 42 stale reads (1.7 % of reads), 42 updates rejected because of them;",
		"Direct Get off: none (all 6 checks passed).",
		// The exact command with its seed, and how to re-render.
		"chaos run --clients=4 --keys=4 --nemesis=kill --nemesis-interval=1s --runtime=local --time-limit=3s --workload=kv-update --seed=31",
		"chaos report " + dir,
		// Versions, fault windows, porcupine and logs.
		"v2.15.3", "nats.go (client)", "kill", "n2",
		`href="direct-get-on/porcupine/linearizability-k0-16.html"`, `href="direct-get-off/logs/n1.log"`,
		`href="junit.xml"`, `href="direct-get-on/history.jsonl"`,
		"Throughput", "Latency", "Errors by kind", "How stale were the stale reads?",
	}
	for _, w := range want {
		if !bytes.Contains(page, []byte(w)) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	if got := strings.Index(string(page), "42 stale reads"); got < 0 || got > strings.Index(string(page), "Cells side by side") {
		t.Error("the verdict sentence is not above the cells table")
	}
	if len(r.Cells) != 2 || r.Cells[0].Series == nil || r.Cells[0].Series.Ops != r.Result.Cells[0].Ops.Total {
		t.Errorf("series of the first cell: %+v", r.Cells[0].Series)
	}
	if _, err := os.Stat(filepath.Join(dir, reports.JUnitFile)); err != nil {
		t.Error(err)
	}
}
func TestRenderPartialRun(t *testing.T) {
	dir := reportstest.UnpackKVRun(t)
	if err := os.Remove(filepath.Join(dir, "results.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "direct-get-off", "results.json")); err != nil {
		t.Fatal(err)
	}
	r, err := reports.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial || !r.Result.Interrupted || len(r.Cells) != 2 {
		t.Fatalf("partial load: partial=%v interrupted=%v cells=%d", r.Partial, r.Result.Interrupted, len(r.Cells))
	}
	if r.Cells[1].CellResult.Verdict != record.Error || r.Cells[1].Series == nil {
		t.Errorf("cell without results.json: verdict %s, series %v", r.Cells[1].CellResult.Verdict, r.Cells[1].Series != nil)
	}
	page := pageOf(t, dir)
	for _, w := range []string{"has no results.json", "42 stale reads", "no results.json: the run was interrupted",
		"Direct Get off: did not run to the end"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	// The cut-short cell's settings are the ones it was asked to run.
	if strings.Contains(page, "0 keys, 0 clients") {
		t.Error("a cell cut short reads as 0 keys, 0 clients")
	}
	if record.ExitCode(r.Result, nil) != record.ExitInterrupted {
		t.Errorf("exit code of an interrupted run = %d", record.ExitCode(r.Result, nil))
	}
}
func TestExpectationsOnThePage(t *testing.T) {
	dir := reportstest.UnpackKVRun(t)
	if _, err := reports.WriteWith(dir, reports.Options{Expect: []record.Expectation{{Cells: "direct-get-on", Anomaly: "stale-reads"}}}); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, reports.HTMLFile))
	for _, w := range []string{"invalid, as expected", "direct-get-on=stale-reads", "VALID</span>", "42 updates rejected because of them (expected);",
		"Only the expected anomalies were found"} {
		if !bytes.Contains(page, []byte(w)) {
			t.Errorf("page lacks %q", w)
		}
	}
	junit, _ := os.ReadFile(filepath.Join(dir, reports.JUnitFile))
	if !bytes.Contains(junit, []byte(`failures="0"`)) {
		t.Errorf("expected anomaly failed in junit.xml")
	}
}

// matrixText is the cells table as "row: cell | cell" lines.
func matrixText(rows []reports.MatrixRow) map[string]string {
	out := map[string]string{}
	for _, r := range rows {
		if r.Group {
			continue
		}
		var vals []string
		for _, v := range r.Vals {
			vals = append(vals, v.Text)
		}
		out[r.Label] = strings.Join(vals, " | ")
	}
	return out
}

// The kv-update table has the rows of reads, updates and data.
func TestKVMatrixUnchanged(t *testing.T) {
	r, err := reports.Load(reportstest.UnpackKVRun(t))
	if err != nil {
		t.Fatal(err)
	}
	got := matrixText(reports.NewPage(r).Table())
	for _, k := range []string{"Stale reads", "Updates", "Operations", "Faults", "Linearizable keys", "Stream integrity"} {
		if _, ok := got[k]; !ok {
			t.Errorf("kv-update table lacks %q", k)
		}
	}
	if _, ok := got["Catch-up time"]; ok {
		t.Errorf("catch-up row in a kv-update table")
	}
}

// pageOf renders a run folder and returns the page.
func pageOf(t *testing.T, dir string) string {
	t.Helper()
	if _, err := reports.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, reports.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestShortLabelsNameTheWorkload(t *testing.T) {
	a := reportstest.CellOf(true, "none", reportstest.ChecksOpts{}, "")
	b := reportstest.CellOf(false, "none", reportstest.ChecksOpts{}, "")
	b.ServerVersion = "v2.10.22"
	o := cellSettings(b)
	o.Keys = 50
	b.Settings = reportstest.MustJSON(o)
	cells := []record.CellResult{a, b}
	got := reports.ShortLabels(cells, workloadTags(cells))
	want := []string{"v2.15.3, Direct Get on, 10 keys", "v2.10.22, Direct Get off, 50 keys"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("ShortLabels = %q, want %q", got, want)
	}
}

// The settings are found in every field the stored JSON has kept them in.
func TestSettingsWhereverStored(t *testing.T) {
	o := kvupdate.Options{Bucket: "b", Keys: 7, Clients: 3, Replicas: 3, Pattern: kvupdate.SingleWriter}
	tests := []struct {
		name string
		cell record.CellResult
	}{
		{"the cell's settings", record.CellResult{Cell: record.Cell{Settings: reportstest.MustJSON(o)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cellSettings(tt.cell); got.Keys != 7 || got.Bucket != "b" {
				t.Errorf("cellSettings = %+v", got)
			}
		})
	}
	if got := cellSettings(record.CellResult{}); got.Keys != 0 {
		t.Errorf("no settings read as %+v", got)
	}
	spec := record.Spec{Settings: []json.RawMessage{reportstest.MustJSON(o), reportstest.MustJSON(o)}}
	if got := specSettings(spec); len(got) != 2 || got[1].Keys != 7 {
		t.Errorf("specSettings = %+v", got)
	}
}

// Summarize reads what the real checkers write: a history with the seed's
// stale read and its rejection, checked by checker.All.
func TestSummaryReadsTheCheckers(t *testing.T) {
	ms := func(n int64) int64 { return n * 1e6 }
	ops := []history.Op{
		{Client: 0, Type: history.Create, Key: "k0", Value: "v1", Rev: 1, Outcome: history.OK, Invoke: ms(1), Complete: ms(2)},
		{Client: 0, Type: history.Get, Key: "k0", Value: "v1", Rev: 1, Outcome: history.OK, Invoke: ms(3), Complete: ms(4)},
		{Client: 0, Type: history.Update, Key: "k0", Value: "v2", ExpectedRev: 1, Rev: 2, Outcome: history.OK, Invoke: ms(5), Complete: ms(6)},
		{Client: 0, Node: "n2", Type: history.Get, Key: "k0", Value: "v1", Rev: 1, Outcome: history.OK, Invoke: ms(7), Complete: ms(8)},
		{Client: 0, Type: history.Update, Key: "k0", Value: "v3", ExpectedRev: 1, Outcome: history.Fail, Err: history.ErrWrongLastSeq,
			ErrCode: 10071, ErrSeq: 2, Invoke: ms(9), Complete: ms(10)},
		{Client: 1, Type: history.Create, Key: "k1", Value: "w1", Rev: 3, Outcome: history.OK, Invoke: ms(1), Complete: ms(2)},
		{Client: 1, Type: history.Get, Key: "k1", Value: "w1", Rev: 3, Outcome: history.OK, Invoke: ms(3), Complete: ms(4)},
		{Client: 1, Type: history.Update, Key: "k1", Value: "w2", ExpectedRev: 3, Outcome: history.Fail, Err: history.ErrWrongLastSeqAny,
			ErrCode: 10164, Invoke: ms(5), Complete: ms(6)},
	}
	stream := []history.Entry{{Seq: 1, Key: "k0", Value: "v1"}, {Seq: 2, Key: "k0", Value: "v2"}, {Seq: 3, Key: "k1", Value: "w1"}}
	checks := kvcheck.Run(history.History{Ops: ops, Stream: stream, StreamComplete: true}, kvcheck.All(checker.Options{Timeout: 10 * time.Second}))
	c := record.CellResult{Checks: checks, Verdict: record.VerdictOf(checks), Ops: record.CountOps(ops, time.Second)}
	s := Summarize(c)
	if !s.HasStale || s.Gets != 3 || s.Stale != 1 || s.StaleKeys != 1 || s.StaleP50 <= 0 || s.StaleMax <= 0 || s.StaleRevs != 1 || len(s.StaleHist) == 0 {
		t.Errorf("stale reads read as %+v", s)
	}
	if s.Rejections != 2 || s.RejStale != 1 || s.RejSpur != 1 || strings.Join(s.SpurCodes, ",") != "10164: 1" {
		t.Errorf("rejections read as %d: %d stale, %d spurious %v", s.Rejections, s.RejStale, s.RejSpur, s.SpurCodes)
	}
	if s.RYW != 1 || s.Keys != 2 || s.KeysBad != 1 || len(s.Integrity) != 0 {
		t.Errorf("session %d, keys %d/%d, integrity %v", s.RYW, s.KeysBad, s.Keys, s.Integrity)
	}
	if got, want := s.Sentence(), "1 stale read (33 % of reads), 1 update rejected because of them, and 1 update rejected (10164) although nothing else wrote the key"; got != want {
		t.Errorf("sentence\n got %q\nwant %q", got, want)
	}
}

// Two puts acknowledged with one revision read as what they are: the one
// the stream does not hold lost, and a write given another's revision.
func TestSummaryNamesASeqConflict(t *testing.T) {
	ops := []history.Op{
		{Client: 0, Type: history.Put, Key: "k0", Value: "v1", Rev: 1, Outcome: history.OK, Invoke: 1, Complete: 2},
		{Client: 1, Type: history.Put, Key: "k1", Value: "w1", Rev: 1, Outcome: history.OK, Invoke: 1, Complete: 2},
	}
	h := history.History{Ops: ops, Stream: []history.Entry{{Seq: 1, Key: "k0", Value: "v1"}}, StreamComplete: true}
	checks := kvcheck.Run(h, []kvcheck.Checker{kvcheck.NewIntegrity(checker.Options{})})
	s := Summarize(record.CellResult{Checks: checks, Verdict: record.VerdictOf(checks), Ops: record.CountOps(ops, time.Second)})
	if got, want := strings.Join(s.Integrity, "; "), "1 acknowledged write lost; 1 write acknowledged with another write's revision"; got != want {
		t.Errorf("integrity read as %q, want %q", got, want)
	}
}

// The kv-update pages fetch nothing and every link resolves.
func TestKVPagesSelfContained(t *testing.T) {
	for name, dir := range map[string]func(t *testing.T) string{
		"testdata": func(t *testing.T) string { return reportstest.UnpackKVRun(t) },
		"matrix":   func(t *testing.T) string { return reportstest.WriteRun(t, reportstest.SyntheticMatrix()) },
	} {
		t.Run(name, func(t *testing.T) {
			d := dir(t)
			page := pageOf(t, d)
			reportstest.CheckSelfContained(t, page)
			reportstest.CheckLinks(t, d, page, 10)
		})
	}
}

// TestIntegrationBrowserRendersKVPages opens report.html of the kv-update test run and
// of a synthetic matrix with faults, harness errors and memory in headless
// Chromium.
func TestIntegrationBrowserRendersKVPages(t *testing.T) {
	page := func(dir func(t *testing.T) string) func(t *testing.T) string {
		return func(t *testing.T) string {
			d := dir(t)
			pageOf(t, d)
			return filepath.Join(d, reports.HTMLFile)
		}
	}
	reportstest.CheckInBrowser(t, []reportstest.BrowserCase{
		{Name: "testdata", Page: page(func(t *testing.T) string { return reportstest.UnpackKVRun(t) }), Want: []string{"Direct Get on:", "stale reads", "Direct Get off: none",
			"How stale were the stale reads?"}, Charts: 7, Height: 1500},
		{Name: "matrix", Page: page(func(t *testing.T) string { return reportstest.WriteRun(t, reportstest.SyntheticMatrix()) }),
			Want: []string{"did not run to the end", "Memory per node", "undecided"}, Charts: 8, Height: 1500},
	})
}

// A check no clause speaks for is still named: a lone 10164 (no anomaly)
// must not hide a replica divergence.
func TestSentenceNamesUnsaidChecks(t *testing.T) {
	c := reportstest.CellOf(false, "kill", reportstest.ChecksOpts{Gets: 100, RejSpurious: 1}, "")
	c.Checks = append(c.Checks, checker.Result{Name: replicas.NameDivergence, Verdict: checker.Invalid, Summary: "replicas differ"})
	c.Verdict = record.Invalid
	got := Summarize(c).Sentence()
	if want := "no stale reads, but 1 update rejected (10164) although nothing else wrote the key, and invalid: replica-divergence"; got != want {
		t.Errorf("sentence\n got %q\nwant %q", got, want)
	}
}
