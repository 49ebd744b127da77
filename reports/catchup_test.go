package reports

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// cuOpts shapes a made-up catch-up cell; the numbers default to those of
// a real 1 GiB run (store/20261130T054249Z-s1829222612, Direct Get off).
type cuOpts struct {
	version   string
	directGet bool
	limit     int64   // hard limit on the target (0: none)
	outcome   string  // catchup.Outcome*; "" current
	seconds   float64 // restart -> current or giving up
	bound     time.Duration
	oomKills  int    // of the target, 2.1 s apart from 2.1 s after the restart
	crashLoop bool   // the runtime restarted it --crash-loop times
	missing   int    // acknowledged ids not read back
	harness   string // a harness error
	noRestart bool   // the cell stopped before the target's restart
	otherOOM  string // a node other than the target OOM-killed once
	noResult  bool   // no catchup.json: the checks alone
}

// mkCatchupCell builds a catch-up cell's results.json and catchup.json
// consistent with o, as the workload writes them.
func mkCatchupCell(o cuOpts) (run.CellResult, *catchup.Result) {
	if o.version == "" {
		o.version = "v2.15.3"
	}
	if o.outcome == "" {
		o.outcome = catchup.OutcomeCurrent
	}
	if o.seconds == 0 {
		o.seconds = 4.857
	}
	if o.bound == 0 {
		o.bound = 2 * time.Minute
	}
	cell := run.Cell{DirectGet: o.directGet, ServerVersion: o.version, Nemesis: "none"}
	cell.Name = o.version + "_direct-get-" + onOff(o.directGet)
	opts := catchup.Defaults
	opts.DirectGet, opts.MemoryLimit, opts.CatchupTimeout = o.directGet, catchup.Bytes(o.limit), o.bound
	r := &catchup.Result{Options: opts, Runtime: "docker", ServerVersion: o.version, Target: "n1", TargetRole: catchup.Follower,
		LeaderAtKill: "n3", StartedAt: time.Date(2026, 11, 30, 5, 43, 16, 0, time.UTC)}
	r.GoMemLimit = opts.GoMemLimit.Bytes(opts.MemoryLimit)
	const restart = 12846
	r.Stream = catchup.StreamStats{Name: "CATCHUP", AllowDirect: o.directGet, FillMsgs: 262145, FillBytes: 1093971020, FillMBps: 149,
		RestartMsgs: 267795, RestartBytes: 1117510556, FinalMsgs: 272971, FinalBytes: 1139158744}
	end := restart + int64(o.seconds*1000)
	r.Phases = []catchup.PhaseTime{{Name: catchup.PhaseFill, EndMs: 7200, Seconds: 7.2}, {Name: catchup.PhaseDown, StartMs: 7200, EndMs: restart, Seconds: 5.646},
		{Name: catchup.PhaseCatchup, StartMs: restart, EndMs: end, Seconds: o.seconds}, {Name: catchup.PhaseHeal, StartMs: end, EndMs: end + 10, Seconds: 0.01},
		{Name: catchup.PhaseVerify, StartMs: end + 10, EndMs: end + 1250, Seconds: 1.24}}
	r.CatchUp = catchup.CatchUp{RestartAtMs: restart, FirstSeenAtMs: restart + 2381, Seconds: o.seconds, Bound: o.bound, Outcome: o.outcome,
		MaxBehind: 246823, PeakRSSDuring: 1056100352, PeakUsageDuring: 2200330240}
	if o.outcome == catchup.OutcomeCurrent {
		r.CatchUp.Completed, r.CatchUp.DataAtMs, r.CatchUp.CurrentAtMs = true, end, end
		r.CatchUp.Detail = "holds last seq 272873, the leader had 272394; /healthz OK"
	} else {
		r.CatchUp.Detail = "n1 not healthy: JetStream stream '$G > CATCHUP' is not current: stream catching up"
	}
	if o.noRestart {
		r.CatchUp = catchup.CatchUp{}
		r.Phases = r.Phases[:2]
	}
	for i, n := range []string{"n1", "n2", "n3"} {
		nm := catchup.NodeMemory{Node: n}
		for ms := int64(0); ms <= end+1250; ms += 250 {
			v := int64(60<<20) + ms*int64(i+1)*1000
			nm.Usage.T, nm.Usage.V = append(nm.Usage.T, ms), append(nm.Usage.V, 2*v)
			nm.RSS.T, nm.RSS.V = append(nm.RSS.T, ms), append(nm.RSS.V, v)
		}
		if n == "n1" && o.limit > 0 {
			nm.Limit = catchup.Series{T: []int64{0, 7300}, V: []int64{0, o.limit}}
		}
		r.Memory = append(r.Memory, nm)
	}
	r.Memory[0].PeakRSS, r.Memory[0].PeakRSSAt, r.Memory[0].PeakRSSRatio = 1056415744, 17752, 0.945
	r.Memory[0].PeakUsage, r.Memory[0].PeakUsageAt, r.Memory[0].PeakUsageRatio = 2235834368, 18001, 2.001
	r.Memory[1].PeakRSS, r.Memory[1].PeakRSSRatio, r.Memory[1].PeakUsage, r.Memory[1].PeakUsageRatio = 65466368, 0.059, 1247412224, 1.116
	r.Memory[2].PeakRSS, r.Memory[2].PeakRSSRatio, r.Memory[2].PeakUsage, r.Memory[2].PeakUsageRatio = 562532352, 0.503, 1740963840, 1.558
	r.Events = []catchup.Event{{TMs: 7200, Node: "n1", Kind: catchup.EvKill}, {TMs: 7300, Node: "n1", Kind: catchup.EvWipe, Detail: "store deleted, as a new volume"}}
	if o.limit > 0 {
		r.Events = append(r.Events, catchup.Event{TMs: 7300, Node: "n1", Kind: catchup.EvLimit, Detail: catchup.Bytes(o.limit).String()})
	}
	if !o.noRestart {
		r.Events = append(r.Events, catchup.Event{TMs: restart, Node: "n1", Kind: catchup.EvStart})
	}
	var oomAt []int64
	for k := range o.oomKills {
		t := int64(restart + 2100*(k+1))
		oomAt = append(oomAt, t)
		r.Events = append(r.Events, catchup.Event{TMs: t, Node: "n1", Kind: catchup.EvOOMKill, Detail: fmt.Sprintf("OOM kill #%d", k+1)},
			catchup.Event{TMs: t, Node: "n1", Kind: catchup.EvRestart, Detail: fmt.Sprintf("restart #%d by the runtime", k+1)})
	}
	if o.oomKills > 0 {
		r.Deaths = append(r.Deaths, catchup.Deaths{Node: "n1", OOMKills: o.oomKills, Restarts: o.oomKills, Deaths: o.oomKills,
			CrashLoop: o.crashLoop, TimesMs: oomAt})
	}
	if o.otherOOM != "" {
		r.Events = append(r.Events, catchup.Event{TMs: 15000, Node: o.otherOOM, Kind: catchup.EvOOMKill, Detail: "OOM kill #1"})
		r.Deaths = append(r.Deaths, catchup.Deaths{Node: o.otherOOM, OOMKills: 1, Restarts: 1, Deaths: 1, TimesMs: []int64{15000}})
	}
	r.Lag = []catchup.LagSample{{TMs: 7205, TargetHas: true, Leader: "n3", LeaderLastSeq: 262165, Behind: 20},
		{TMs: 7700, Leader: "n3", LeaderLastSeq: 262675, Behind: 262675}, {TMs: restart + 2500, TargetHas: true, Leader: "n3", LeaderLastSeq: 269000, TargetLastSeq: 100000, Behind: 169000, ReplicaLag: 169000},
		{TMs: end, TargetHas: true, TargetHealthy: true, Leader: "n3", LeaderLastSeq: 272394, TargetLastSeq: 272394}}
	r.Publish = catchup.PublishSummary{Sent: 272971, Acked: int64(272971), AckedB: 1118089216,
		Latency: map[catchup.Phase]catchup.Latency{
			catchup.PhaseFill:    {Count: 262165, P50Ms: 13.8, P99Ms: 39, MaxMs: 52.7},
			catchup.PhaseDown:    {Count: 5780, P50Ms: 0.43, P99Ms: 1.7, MaxMs: 6.6},
			catchup.PhaseCatchup: {Count: 5026, P50Ms: 1.45, P99Ms: 110.2, MaxMs: 143.4}},
		AckedMBps: map[catchup.Phase]float64{catchup.PhaseFill: 149.1, catchup.PhaseDown: 4.2, catchup.PhaseCatchup: 4.2}}
	for s := int64(0); s*1000 < end; s++ {
		r.Publish.PerSecond = append(r.Publish.PerSecond, catchup.PublishSecond{T: s, OK: 1000, P50Ms: 1 + float64(s%3), P99Ms: 20 + float64(s), MaxMs: 40 + float64(s)})
	}
	r.Integrity = catchup.Integrity{ReplicasAgree: true, ReplicasDetail: "all 3 replicas have first 1 last 272971 msgs 272971",
		Acked: 272971, Read: 272971, Distinct: 272971, Missing: uint64(o.missing), Complete: true, ReadDetail: "read 272971 messages in 1.2s"}
	r.Integrity.Replicas = []catchup.ReplicaState{{Node: "n1"}, {Node: "n2"}, {Node: "n3"}}
	r.LogLines = []catchup.LogMatch{{Node: "n1", Pattern: "Catchup for stream", Count: 2,
		First: "[1] 2026/11/30 05:43:31.259700 [WRN] Catchup for stream '$G > CATCHUP' resetting first sequence: 1 on catchup request",
		Last:  "[1] 2026/11/30 05:43:33.965859 [INF] Catchup for stream '$G > CATCHUP' complete (took 2.706s)"}}
	r.Checks = cuChecks(r, o)
	r.Verdict = checker.Valid
	cr := run.CellResult{Cell: cell, Label: "catch-up, " + cell.Label(), Dir: "store/x/" + cell.Name, Runtime: "docker",
		StartedAt: r.StartedAt, Phases: map[string]float64{}, Checks: r.Checks, Verdict: run.VerdictOf(r.Checks)}
	for _, p := range r.Phases {
		cr.Phases[string(p.Name)] = p.Seconds
	}
	if o.harness != "" {
		cr.Error, cr.Verdict, r.Error = o.harness, run.Error, o.harness
	}
	if o.noRestart {
		cr.Checks, r.Checks = nil, nil
	}
	if o.noResult {
		return cr, nil
	}
	return cr, r
}

// cuChecks are the six checks as workloads/catchup decides them.
func cuChecks(r *catchup.Result, o cuOpts) []checker.Result {
	res := func(name string, bad bool, summary string, counts map[string]int) checker.Result {
		v := checker.Valid
		if bad {
			v = checker.Invalid
		}
		return checker.Result{Name: name, Verdict: v, Summary: summary, Counts: counts}
	}
	kills := o.oomKills
	if o.otherOOM != "" {
		kills++
	}
	var deaths []string
	for _, d := range r.Deaths {
		deaths = append(deaths, d.Describe())
	}
	oom := res(cuOOM, kills > 0, strings.Join(deaths, "; "), map[string]int{"oom_kills": kills})
	if kills == 0 {
		oom.Summary = "no OOM kill (no memory limit set)"
	}
	loops := 0
	if o.crashLoop {
		loops = 1
	}
	loop := res(cuCrashLoop, o.crashLoop, "no node died or restarted by itself", map[string]int{"restarts": kills, "deaths": kills, "crash_loops": loops})
	if kills > 0 && !o.crashLoop {
		loop.Verdict, loop.Reason = checker.Unknown, "a node died by itself, below the crash-loop threshold of 2 restarts"
		loop.Summary = loop.Reason
	} else if o.crashLoop {
		loop.Summary = strings.Join(deaths, "; ")
	}
	cu := res(cuCatchUp, o.outcome != catchup.OutcomeCurrent, fmt.Sprintf("current %.1fs after the restart (bound %s): %s", o.seconds, o.bound, r.CatchUp.Detail),
		map[string]int{"completed": 1, "ms": int(o.seconds * 1000)})
	if o.outcome != catchup.OutcomeCurrent {
		cu.Summary = fmt.Sprintf("not current after %.1fs (%s, bound %s): %s", o.seconds, o.outcome, o.bound, r.CatchUp.Detail)
		cu.Counts["completed"] = 0
	}
	acked := res(cuAcked, o.missing > 0, "all 272971 acknowledged ids present once", map[string]int{"acked": 272971, "read": 272971 - o.missing, "missing": o.missing})
	if o.missing > 0 {
		acked.Summary = fmt.Sprintf("%d of 272971 acknowledged ids missing from the stream (e.g. 1.17)", o.missing)
	}
	return []checker.Result{oom, loop, cu,
		res(cuRecovery, false, "recovered after 0.0s: all nodes healthy", map[string]int{"recovered": 1}),
		res(cuReplicas, false, r.Integrity.ReplicasDetail, map[string]int{"replicas": 3}), acked}
}

// catchupRunOf makes a catch-up run of the cells.
func catchupRunOf(cells ...run.CellResult) run.Result {
	res := run.Result{ID: "cu", Verdict: run.Valid, Command: "chaos run --workload=catchup --seed=1", Seed: 1, Runtime: "docker"}
	res.Spec = run.Spec{Workload: workloadCatchup, Runtime: "docker", Nemeses: []string{"none"}, Seed: 1}
	_ = res.Spec.SetSettings([]workloads.Settings{catchup.Defaults})
	seenV, seenDG := map[string]bool{}, map[bool]bool{}
	for _, c := range cells {
		res.Cells = append(res.Cells, c)
		res.Verdict = worse(res.Verdict, c.Verdict)
		if !seenV[c.ServerVersion] {
			seenV[c.ServerVersion] = true
			res.Spec.ServerVersions = append(res.Spec.ServerVersions, c.ServerVersion)
		}
		if !seenDG[c.DirectGet] {
			seenDG[c.DirectGet] = true
			res.Spec.DirectGet = append(res.Spec.DirectGet, c.DirectGet)
		}
	}
	// Name the cells as the pipeline does: the version only when several.
	for i := range res.Cells {
		c := &res.Cells[i]
		for _, sc := range res.Spec.Cells() {
			if sc.ServerVersion == c.ServerVersion && sc.DirectGet == c.DirectGet {
				c.Name, c.Dir = sc.Name, "store/cu/"+sc.Name
			}
		}
	}
	return res
}

func TestCatchupHeadline(t *testing.T) {
	tests := []struct {
		name string
		opts cuOpts
		want string
	}{
		{"valid, no limit", cuOpts{},
			"v2.15.3, Direct Get off: n1 caught up 1.04 GiB in 4.9 s, peak 0.98 GiB RSS (0.94x the stream) without a memory limit, no OOM kill, nothing lost."},
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
			"v2.15.3, Direct Get off: the target OOM-killed 3 times (crash loop); did not catch up within 8.0 s; nothing lost."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, r := mkCatchupCell(tt.opts)
			res := catchupRunOf(c)
			judged, _ := JudgeRun(res, nil)
			got := strings.Join(catchupHeadline(res, judged, []*catchup.Result{r}), " ")
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
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	parts := HeadlineParts(r.Result)
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

// writeCatchupRun stores a catch-up run: results.json, run.json and each
// cell's results.json and catchup.json (a nil one is left out).
func writeCatchupRun(t testing.TB, res run.Result, cus ...*catchup.Result) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), res.ID)
	res.Dir = dir
	for i, c := range res.Cells {
		cdir := filepath.Join(dir, c.Name)
		writeJSONFile(t, filepath.Join(cdir, "results.json"), c)
		if i < len(cus) && cus[i] != nil {
			writeJSONFile(t, filepath.Join(cdir, catchup.ResultFile), cus[i])
		}
	}
	writeJSONFile(t, filepath.Join(dir, "results.json"), res)
	writeJSONFile(t, filepath.Join(dir, "run.json"), res.Spec)
	return dir
}

// matrixText is the cells table as "row: cell | cell" lines.
func matrixText(m matrix) map[string]string {
	out := map[string]string{}
	for _, r := range m.Rows {
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
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := buildPage(r, time.Now())
	got := matrixText(p.Matrix)
	want := map[string]string{
		"nats-server":                             "v2.15.3 | v2.15.3 | v2.11.8",
		"Direct Get":                              "on | off | off",
		"Stream at the restart":                   "1.04 GiB, 267,795 msgs (backlog 1 GiB of 4 KiB messages) | 1.04 GiB, 267,795 msgs (backlog 1 GiB of 4 KiB messages) | –",
		"Memory limit / GOMEMLIMIT":               "1.5 GiB / 1.2 GiB (auto: 80 % of the limit) | 1.5 GiB / 1.2 GiB (auto: 80 % of the limit) | –",
		"max_outstanding_catchup":                 "server default (64 MB) | server default (64 MB) | –",
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
	if len(p.Matrix.Head) != 3 || p.Matrix.Head[2].Label != "v2.11.8, Direct Get off" || p.Matrix.Head[2].Verdict != "error" {
		t.Errorf("head = %+v", p.Matrix.Head)
	}
}

// The kv-update table keeps its rows when a run is not a catch-up run.
func TestKVMatrixUnchanged(t *testing.T) {
	r, err := Load(unpackRun(t))
	if err != nil {
		t.Fatal(err)
	}
	got := matrixText(buildPage(r, time.Now()).Matrix)
	for _, k := range []string{"Stale reads", "Updates", "Operations", "Faults", "Linearizable keys", "Stream integrity"} {
		if _, ok := got[k]; !ok {
			t.Errorf("kv-update table lacks %q", k)
		}
	}
	if _, ok := got["Catch-up time"]; ok {
		t.Errorf("catch-up row in a kv-update table")
	}
}

// The page of a catch-up run says catch-up, links the workload's files,
// draws its charts and keeps the kv-update wording out.
func TestCatchupPage(t *testing.T) {
	ok, rok := mkCatchupCell(cuOpts{directGet: true, limit: 1536 << 20})
	oom, room := mkCatchupCell(cuOpts{limit: 1536 << 20, oomKills: 3, crashLoop: true, outcome: catchup.OutcomeTimeout, seconds: 600, bound: 10 * time.Minute})
	dir := writeCatchupRun(t, catchupRunOf(ok, oom), rok, room)
	page := pageOf(t, dir)
	for _, w := range []string{
		"<title>INVALID: jetstream-chaos catch-up run cu</title>", "NATS JetStream replica catch-up",
		"v2.15.3, Direct Get on: n1 caught up 1.04 GiB in 4.9 s", "n1 OOM-killed 3 times (crash loop)",
		"What was tested", "Catch-up time", "Fits the limit",
		"Memory per node", "How far n1 is behind the stream leader", "Publish latency, acknowledged, per second",
		"target down (killed, wiped)", "catching up", "OOM n1",
		`href="direct-get-off/catchup.json"`, "memory.csv (memory per node", "lag.csv", "publish.csv", "events.jsonl", "health.jsonl",
		"Memory per node, from the restart to the heal", "What happened to the nodes", "OOM-killed", "Phases and publishing",
		"Server log lines of interest", "resetting first sequence",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	for _, w := range []string{"KV under faults", "history.jsonl", "stale reads", "No charts", "none (all 6 checks passed)"} {
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
	if _, err := Write(dir); err != nil {
		t.Fatal(err)
	}
	var suites xmlSuites
	readXMLFile(t, filepath.Join(dir, JUnitFile), &suites)
	if len(suites.Suites) != 2 || suites.Tests != 14 || suites.Failures != 3 || suites.Errors != 0 {
		t.Fatalf("suites %d, tests %d, failures %d, errors %d; want 2, 14, 3, 0", len(suites.Suites), suites.Tests, suites.Failures, suites.Errors)
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
	if strings.Join(names, ",") != "harness,oom-kill,crash-loop,catch-up,recovery,replicas-agree,acked-present" {
		t.Errorf("testcases %v", names)
	}
	props := map[string]string{}
	for _, p := range s.Properties {
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
// catchup.json measured.
func TestCatchupPartialRun(t *testing.T) {
	c, r := mkCatchupCell(cuOpts{limit: 1536 << 20})
	res := catchupRunOf(c)
	dir := writeCatchupRun(t, res, r)
	for _, f := range []string{"results.json", filepath.Join(res.Cells[0].Name, "results.json")} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	ld, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !ld.Partial || len(ld.Cells) != 1 || ld.Cells[0].Catchup == nil {
		t.Fatalf("partial %v, %d cells", ld.Partial, len(ld.Cells))
	}
	got := strings.Join(HeadlineParts(ld.Result), " ")
	want := "v2.15.3, Direct Get off: did not run to the end: no results.json: the run was interrupted or is still running; " +
		"what was measured is in catchup.json; n1 caught up 1.04 GiB in 4.9 s; peak 0.98 GiB RSS (0.94x the stream) under its 1.5 GiB limit; no OOM kill; nothing lost. " +
		"The run was interrupted: cells after these did not run."
	if got != want {
		t.Errorf("headline\n got: %s\nwant: %s", got, want)
	}
	if page := pageOf(t, dir); !strings.Contains(page, "How far n1 is behind the stream leader") {
		t.Error("the partial page lacks the catch-up charts")
	}
}
