package catchupview

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

func TestCatchupHeadline(t *testing.T) {
	tests := []struct {
		name string
		opts cuOpts
		want string
	}{
		{"valid, no limit", cuOpts{},
			"v2.15.3, Direct Get off: n1 caught up 1.04 GiB in 4.9 s, peak 0.98 GiB RSS (0.94x the stream) without a memory limit, no OOM kill, nothing lost."},
		{"memory unbounded, no OOM kill", cuOpts{jump: true},
			"v2.15.3, Direct Get off: n1 caught up 1.04 GiB in 4.9 s; peak 0.98 GiB RSS (0.94x the stream) without a memory limit; its memory jumped to 2.45 GiB RSS, 29x the other follower's 86 MiB (beyond the catch-up memory bound); no OOM kill; nothing lost."},
		{"memory demand held down by the limit", cuOpts{jump: true, censored: true, limit: 1536 << 20, oomKills: 1},
			"v2.15.3, Direct Get off: n1 caught up 1.04 GiB in 4.9 s; peak 0.98 GiB RSS (0.94x the stream); OOM-killed once under its 1.5 GiB limit, 2.1 s after its restart; its memory demand was at least its 1.5 GiB limit (beyond the catch-up memory bound); nothing lost."},
		{"valid under a limit", cuOpts{directGet: true, limit: 1536 << 20},
			"v2.15.3, Direct Get on: n1 caught up 1.04 GiB in 4.9 s, peak 0.98 GiB RSS (0.94x the stream) under its 1.5 GiB limit, no OOM kill, nothing lost."},
		{"OOM kills and a crash loop", cuOpts{limit: 1536 << 20, oomKills: 3, crashLoop: true, outcome: catchup.OutcomeTimeout, seconds: 600, bound: 10 * time.Minute},
			"v2.15.3, Direct Get off: n1 OOM-killed 3 times (crash loop) under its 1.5 GiB limit, first 2.1 s after its restart; did not catch up within 10 m; nothing lost."},
		{"crash loop stops the wait", cuOpts{limit: 80 << 20, oomKills: 3, crashLoop: true, outcome: catchup.OutcomeCrashLoop, seconds: 8},
			"v2.15.3, Direct Get off: n1 OOM-killed 3 times (crash loop) under its 80 MiB limit, first 2.1 s after its restart; did not catch up (the wait stopped at the crash loop, 8.0 s after the restart); nothing lost."},
		{"OOM-killed once after catching up", cuOpts{version: "v2.11.8", directGet: true, limit: 160 << 20, oomKills: 1},
			"v2.11.8, Direct Get on: n1 caught up 1.04 GiB in 4.9 s; peak 0.98 GiB RSS (0.94x the stream); OOM-killed once under its 160 MiB limit, 2.1 s after its restart; nothing lost."},
		{"not caught up, nothing died", cuOpts{limit: 1536 << 20, outcome: catchup.OutcomeTimeout, seconds: 120},
			"v2.15.3, Direct Get off: n1 did not catch up 1.04 GiB within 2 m; peak 0.98 GiB RSS (0.94x the stream) under its 1.5 GiB limit; no OOM kill; nothing lost."},
		{"another node OOM-killed, messages lost", cuOpts{limit: 1536 << 20, otherOOM: "n3", missing: 12},
			"v2.15.3, Direct Get off: n1 caught up 1.04 GiB in 4.9 s; peak 0.98 GiB RSS (0.94x the stream) under its 1.5 GiB limit; n3 OOM-killed once, at 15.0 s; 12 of 272,971 acknowledged messages lost."},
		{"harness error before the restart", cuOpts{harness: "fill: publish: nats: no responders available for request", noRestart: true},
			"v2.15.3, Direct Get off: did not run to the end: fill: publish: nats: no responders available for request."},
		{"harness error after the restart", cuOpts{harness: "teardown: docker: container n2: context deadline exceeded"},
			"v2.15.3, Direct Get off: did not run to the end: teardown: docker: container n2: context deadline exceeded; n1 caught up 1.04 GiB in 4.9 s; peak 0.98 GiB RSS (0.94x the stream) without a memory limit; no OOM kill; nothing lost."},
		{"no catchup.json: the checks alone", cuOpts{limit: 80 << 20, oomKills: 3, crashLoop: true, outcome: catchup.OutcomeCrashLoop, seconds: 8, noResult: true},
			"v2.15.3, Direct Get off: no catchup.json, so nothing measured to say: see the checks."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, r := mkCatchupCell(tt.opts)
			res := catchupRunOf(c)
			judged, _ := record.JudgeRun(res, nil)
			var m *catchup.Result
			if r != nil {
				m = r
				if tt.opts.noResult {
					t.Fatal("noResult made a catchup.json")
				}
			}
			got := strings.Join(catchupHeadline(res, judged, catchupLabels(res.Cells), []CatchupSummary{SummarizeCatchup(c, m)}), " ")
			if got != tt.want {
				t.Errorf("headline\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

// A catch-up run names every cell, versions first, one sentence each; the
// public Headline finds catchup.json through the run folder.
func TestCatchupHeadlineFromDisk(t *testing.T) {
	on, ron := mkCatchupCell(cuOpts{directGet: true, limit: 160 << 20, oomKills: 1, version: "v2.11.8"})
	off, roff := mkCatchupCell(cuOpts{version: "v2.11.8"})
	res := catchupRunOf(on, off)
	dir := writeCatchupRun(t, res, ron, roff)
	r, err := reports.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	parts := reports.HeadlineParts(r.Result)
	if len(parts) != 2 || !strings.HasPrefix(parts[0], "v2.11.8, Direct Get on: n1 caught up 1.04 GiB") ||
		!strings.HasPrefix(parts[1], "v2.11.8, Direct Get off: n1 caught up") || !strings.Contains(parts[0], "OOM-killed once") {
		t.Errorf("HeadlineParts = %q", parts)
	}
	for _, p := range parts {
		if strings.Contains(p, "checks passed") {
			t.Errorf("a kv-update sentence in a catch-up headline: %q", p)
		}
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

func TestCatchupMatrix(t *testing.T) {
	ok, rok := mkCatchupCell(cuOpts{directGet: true, limit: 1536 << 20})
	oom, room := mkCatchupCell(cuOpts{limit: 1536 << 20, oomKills: 3, crashLoop: true, outcome: catchup.OutcomeTimeout, seconds: 600, bound: 10 * time.Minute})
	gone, _ := mkCatchupCell(cuOpts{version: "v2.11.8", harness: "cluster: start n2: timeout", noRestart: true, noResult: true})
	res := catchupRunOf(ok, oom, gone)
	dir := writeCatchupRun(t, res, rok, room, nil)
	r, err := reports.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := reports.NewPage(r)
	got := matrixText(p.Table())
	want := map[string]string{
		"nats-server":                             "v2.15.3 | v2.15.3 | v2.11.8",
		"Direct Get":                              "on | off | off",
		"Stream at the restart":                   "1.04 GiB, 267,795 msgs (backlog 1 GiB of 4 KiB messages) | 1.04 GiB, 267,795 msgs (backlog 1 GiB of 4 KiB messages) | –",
		"Memory limit / GOMEMLIMIT":               "1.5 GiB / 1.2 GiB (auto: 80 % of the limit) | 1.5 GiB / 1.2 GiB (auto: 80 % of the limit) | –",
		"Target":                                  "n1, the stream's follower (leader n3) | n1, the stream's follower (leader n3) | –",
		"Catch-up time":                           "4.9 s (bound 2 m) | not current after 10 m (the bound ran out): n1 not healthy: JetStream stream '$G > CATCHUP' is not current: stream catching up | –",
		"Target: peak RSS":                        "0.98 GiB (0.94x) at 17.8 s; 0.98 GiB while catching up | 0.98 GiB (0.94x) at 17.8 s | –",
		"Target: peak cgroup usage":               "2.08 GiB (2.00x) at 18.0 s | 2.08 GiB (2.00x) at 18.0 s | –",
		"Fits the limit":                          "yes: peak RSS 66 % of 1.5 GiB; cgroup usage reached the limit (page cache reclaimed) | no: OOM-killed 3 times at its 1.5 GiB limit | –",
		"Other nodes: peak RSS":                   "n2 62.4 MiB (0.06x); n3 (leader) 536 MiB (0.50x) | n2 62.4 MiB (0.06x); n3 (leader) 536 MiB (0.50x) | –",
		"OOM kills":                               "none | n1 3 times at 14.9 s, 17.0 s, 19.1 s | –",
		"Restarts by the runtime":                 "none | n1 3 times at 14.9 s, 17.0 s, 19.1 s | –",
		"Crash loop":                              "no (threshold 2 restarts) | yes: n1 (3 restarts) | –",
		"Publish latency p99 during the catch-up": "110 ms (p50 1.4 ms, max 143 ms) [down: p99 1.7 ms] | 110 ms (p50 1.4 ms, max 143 ms) [down: p99 1.7 ms] | –",
		"Publish errors":                          "none in 272,971 publishes | none in 272,971 publishes | –",
		"Acknowledged messages":                   "272,971 acknowledged, 0 missing | 272,971 acknowledged, 0 missing | –",
		"Replicas agree":                          "yes: all 3 replicas have first 1 last 272971 msgs 272971 | yes: all 3 replicas have first 1 last 272971 msgs 272971 | –",
		"oom-kill":                                "valid | invalid | –",
		"catch-up":                                "valid | invalid | –",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("row %q\n got: %s\nwant: %s", k, got[k], w)
		}
	}
	// None of the kv-update rows.
	for _, k := range []string{"Stale reads", "Updates", "Operations", "Faults", "Linearizable keys"} {
		if _, ok := got[k]; ok {
			t.Errorf("kv-update row %q in a catch-up table", k)
		}
	}
	if len(p.Labels) != 3 || p.Labels[2] != "v2.11.8, Direct Get off" || reports.VerdictWord(p.Judged[2].CellResult.Verdict, p.Judged[2]) != "error" {
		t.Errorf("labels %q, judged %+v", p.Labels, p.Judged[2].Verdict)
	}
}

// The page of a catch-up run says catch-up, links the workload's files,
// draws its charts and keeps the kv-update wording out.
func TestCatchupPage(t *testing.T) {
	ok, rok := mkCatchupCell(cuOpts{directGet: true, limit: 1536 << 20})
	oom, room := mkCatchupCell(cuOpts{limit: 1536 << 20, oomKills: 3, crashLoop: true, outcome: catchup.OutcomeTimeout, seconds: 600, bound: 10 * time.Minute})
	res := catchupRunOf(ok, oom)
	dir := writeCatchupRun(t, res, rok, room)
	// The first cell's history holds its publishes: their charts are the
	// pipeline's; the second, stored before, points at publish.csv.
	var ops []history.Op
	for i := range 40 {
		ops = append(ops, history.Op{Client: i % 2, Type: catchup.OpPublish, Outcome: history.OK, Invoke: int64(i) * 250e6, Complete: int64(i)*250e6 + 2e6})
	}
	reportstest.WriteJSONLines(t, filepath.Join(dir, res.Cells[0].Name, "history.jsonl"), ops)
	page := pageOf(t, dir)
	for _, w := range []string{
		"<title>INVALID: jetstream-chaos catch-up run cu</title>", "NATS JetStream replica catch-up",
		"v2.15.3, Direct Get on: n1 caught up 1.04 GiB in 4.9 s", "n1 OOM-killed 3 times (crash loop)",
		"What was tested", "Catch-up time", "Fits the limit",
		"Memory per node", "How far n1 is behind the stream leader", "Latency of acknowledged ops",
		"Publishing second by second is in publish.csv: the cell was stored before its history recorded every publish.",
		"target down (killed, wiped)", "catching up", "OOM n1",
		`href="direct-get-off/catchup.json"`, "memory.csv (memory per node", "lag.csv", "publish.csv", "events.jsonl", "health.jsonl",
		"What happened to the nodes", "OOM-killed",
		"Server log lines of interest", "resetting first sequence",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	// Each node's peaks and deaths are in the cells table, not again per cell.
	for _, w := range []string{"KV under faults", "history.jsonl", "stale reads", "No charts", "none (all 6 checks passed)", "Memory per node, from"} {
		if strings.Contains(page, w) {
			t.Errorf("page of a catch-up run shows %q", w)
		}
	}
	// states.jsonl was not written here: listed as missing, not hidden.
	if !strings.Contains(page, `states.jsonl (the runtime&#39;s view of each node) <span class="missing">(missing)</span>`) {
		t.Errorf("a missing states.jsonl is not marked")
	}
}

// JUnit: one suite per catch-up cell, a testcase per check, and the
// harness testcase says the cell's finding in words.
func TestCatchupJUnit(t *testing.T) {
	ok, rok := mkCatchupCell(cuOpts{directGet: true})
	oom, room := mkCatchupCell(cuOpts{limit: 1536 << 20, oomKills: 3, crashLoop: true, outcome: catchup.OutcomeTimeout, seconds: 600, bound: 10 * time.Minute})
	dir := writeCatchupRun(t, catchupRunOf(ok, oom), rok, room)
	if _, err := reports.Write(dir); err != nil {
		t.Fatal(err)
	}
	var suites jSuites
	readXMLFile(t, filepath.Join(dir, reports.JUnitFile), &suites)
	if len(suites.Suites) != 2 || suites.Tests != 16 || suites.Failures != 3 || suites.Errors != 0 { // 7 checks + harness a cell
		t.Fatalf("suites %d, tests %d, failures %d, errors %d; want 2, 16, 3, 0", len(suites.Suites), suites.Tests, suites.Failures, suites.Errors)
	}
	s := suites.Suites[1]
	var names []string
	for _, c := range s.Cases {
		names = append(names, c.Name)
		if c.Name == "harness" && !strings.Contains(c.SystemOut, "n1 OOM-killed 3 times (crash loop) under its 1.5 GiB limit") {
			t.Errorf("harness system-out %q", c.SystemOut)
		}
		if c.Name == "oom-kill" && (c.Failure == nil || !strings.Contains(c.Failure.Message, "3 OOM kill(s)")) {
			t.Errorf("oom-kill testcase %+v", c)
		}
	}
	if strings.Join(names, ",") != "harness,oom-kill,crash-loop,catch-up,catchup-memory,recovery,replicas-agree,acked-present" {
		t.Errorf("testcases %v", names)
	}
	props := map[string]string{}
	for _, p := range s.Props {
		props[p.Name] = p.Value
	}
	if props["workload"] != "catchup" || props["target_node"] != "n1" || props["server_version"] != "v2.15.3" {
		t.Errorf("properties %v", props)
	}
}

func readXMLFile(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// A catch-up run cut short (no results.json anywhere) still says what its
// catchup.json measured; an old catchup.json, which held the checks too,
// also says what they found.
func TestCatchupPartialRun(t *testing.T) {
	const said = "v2.15.3, Direct Get off: did not run to the end: no results.json: the run was interrupted or is still running; " +
		"what was measured is in catchup.json; n1 caught up 1.04 GiB in 4.9 s; peak 0.98 GiB RSS (0.94x the stream) under its 1.5 GiB limit; no OOM kill"
	const interrupted = " The run was interrupted: cells after these did not run."
	c, r := mkCatchupCell(cuOpts{limit: 1536 << 20})
	tests := []struct {
		name    string
		catchup any
		want    string
	}{
		{"measurements only", r, said + "." + interrupted},
		{"old catchup.json with the checks", oldShape(r, c), said + "; nothing lost." + interrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := catchupRunOf(c)
			dir := writeCatchupRun(t, res, tt.catchup)
			for _, f := range []string{"results.json", filepath.Join(res.Cells[0].Name, "results.json")} {
				if err := os.Remove(filepath.Join(dir, f)); err != nil {
					t.Fatal(err)
				}
			}
			ld, err := reports.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !ld.Partial || len(ld.Cells) != 1 || measuredOf(ld.Cells[0]) == nil {
				t.Fatalf("partial %v, %d cells", ld.Partial, len(ld.Cells))
			}
			if got := strings.Join(reports.HeadlineParts(ld.Result), " "); got != tt.want {
				t.Errorf("headline\n got: %s\nwant: %s", got, tt.want)
			}
			if page := pageOf(t, dir); !strings.Contains(page, "How far n1 is behind the stream leader") {
				t.Error("the partial page lacks the catch-up charts")
			}
		})
	}
}

// The checks of results.json decide; an old catchup.json's checks only
// fill in for a cell without them.
func TestCatchupChecksFromResults(t *testing.T) {
	c, r := mkCatchupCell(cuOpts{limit: 1536 << 20, missing: 12})
	stale := c
	stale.Checks = append([]checker.Result(nil), c.Checks...)
	stale.Checks[5].Verdict, stale.Checks[5].Counts = checker.Valid, map[string]int{"acked": 272971}
	s := SummarizeCatchup(c, oldShape(r, stale))
	if got := s.Sentence(); !strings.HasSuffix(got, "12 of 272,971 acknowledged messages lost") {
		t.Errorf("sentence %q: results.json's acked-present did not decide", got)
	}
}

// jSuites is junit.xml as a CI reader sees it.
type jSuites struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			SystemOut string `xml:"system-out"`
			Failure   *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
				Body    string `xml:",chardata"`
			} `xml:"error"`
		} `xml:"testcase"`
		Props []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
	} `xml:"testsuite"`
}
