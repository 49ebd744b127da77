package catchupview

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/internal/latency"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// Made-up catch-up cells for every shape of the sentence, and the
// stores that hold them.

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
	jump      bool   // the catch-up memory check found the target's memory unbounded
	censored  bool   // with jump: by a demand its limit held down (at least the limit)
}

// cuRestart is when the made-up target restarts, ms since the cell began.
const cuRestart = 12846

// mkCatchupCell builds a catch-up cell's results.json (with the checks)
// and catchup.json (the measurements) consistent with o, as the workload
// writes them.
func mkCatchupCell(o cuOpts) (record.CellResult, *catchup.Result) {
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
	cell := record.Cell{DirectGet: o.directGet, ServerVersion: o.version, Nemesis: "none"}
	cell.Name = o.version + "_direct-get-" + reports.OnOff(o.directGet)
	opts := catchup.Defaults
	opts.DirectGet, opts.MemoryLimit, opts.CatchupTimeout = o.directGet, bytesize.Bytes(o.limit), o.bound
	r := &catchup.Result{Options: opts, Runtime: "docker", ServerVersion: o.version, Target: "n1", TargetRole: catchup.Follower,
		LeaderAtKill: "n3", StartedAt: time.Date(2026, 11, 30, 5, 43, 16, 0, time.UTC)}
	r.GoMemLimit = opts.GoMemLimit.Bytes(int64(opts.MemoryLimit))
	restart := int64(cuRestart)
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
	cuMemory(r, end, o)
	cuEvents(r, o)
	r.Lag = []catchup.LagSample{{TMs: 7205, TargetHas: true, Leader: "n3", LeaderLastSeq: 262165, Behind: 20},
		{TMs: 7700, Leader: "n3", LeaderLastSeq: 262675, Behind: 262675}, {TMs: restart + 2500, TargetHas: true, Leader: "n3", LeaderLastSeq: 269000, TargetLastSeq: 100000, Behind: 169000, ReplicaLag: 169000},
		{TMs: end, TargetHas: true, TargetHealthy: true, Leader: "n3", LeaderLastSeq: 272394, TargetLastSeq: 272394}}
	r.Publish = catchup.PublishSummary{Sent: 272971, Acked: int64(272971), AckedB: 1118089216,
		Latency: map[catchup.Phase]latency.Summary{
			catchup.PhaseFill:    {Count: 262165, P50Ms: 13.8, P99Ms: 39, MaxMs: 52.7},
			catchup.PhaseDown:    {Count: 5780, P50Ms: 0.43, P99Ms: 1.7, MaxMs: 6.6},
			catchup.PhaseCatchup: {Count: 5026, P50Ms: 1.45, P99Ms: 110.2, MaxMs: 143.4}},
		AckedMBps: map[catchup.Phase]float64{catchup.PhaseFill: 149.1, catchup.PhaseDown: 4.2, catchup.PhaseCatchup: 4.2}}
	for s := int64(0); s*1000 < end; s++ {
		r.Publish.PerSecond = append(r.Publish.PerSecond, catchup.PublishSecond{T: s, OK: 1000, P50Ms: 1 + float64(s%3), P99Ms: 20 + float64(s), MaxMs: 40 + float64(s)})
	}
	r.Integrity = catchup.Integrity{ReplicasAgree: true, ReplicasDetail: "all 3 replicas have first 1 last 272971 msgs 272971",
		Acked: 272971, Read: 272971, Distinct: 272971, Missing: uint64(o.missing), Complete: true, ReadDetail: "read 272971 messages in 1.2s"}
	r.Integrity.Replicas = []observe.ReplicaState{{Node: "n1"}, {Node: "n2"}, {Node: "n3"}}
	r.LogLines = []catchup.LogMatch{{Node: "n1", Pattern: "Catchup for stream", Count: 2,
		First: "[1] 2026/11/30 05:43:31.259700 [WRN] Catchup for stream '$G > CATCHUP' resetting first sequence: 1 on catchup request",
		Last:  "[1] 2026/11/30 05:43:33.965859 [INF] Catchup for stream '$G > CATCHUP' complete (took 2.706s)"}}
	checks := cuChecks(r, o)
	cr := record.CellResult{Cell: cell, Label: "catch-up, " + cell.Label(), Dir: "store/x/" + cell.Name, Runtime: "docker",
		StartedAt: r.StartedAt, Phases: map[string]float64{}, Checks: checks, Verdict: record.VerdictOf(checks)}
	for _, p := range r.Phases {
		cr.Phases[string(p.Name)] = p.Seconds
	}
	if o.harness != "" {
		cr.Error, cr.Verdict = o.harness, record.Error
	}
	if o.noRestart {
		cr.Checks = nil
	}
	if o.noResult {
		return cr, nil
	}
	return cr, r
}

// cuMemory fills every node's memory series and peaks.
func cuMemory(r *catchup.Result, end int64, o cuOpts) {
	for i, n := range []string{"n1", "n2", "n3"} {
		nm := catchup.NodeMemory{NodeMemory: observe.NodeMemory{Node: n}}
		for ms := int64(0); ms <= end+1250; ms += 250 {
			v := int64(60<<20) + ms*int64(i+1)*1000
			nm.Usage.T, nm.Usage.V = append(nm.Usage.T, ms), append(nm.Usage.V, 2*v)
			nm.RSS.T, nm.RSS.V = append(nm.RSS.T, ms), append(nm.RSS.V, v)
		}
		if n == "n1" && o.limit > 0 {
			nm.Limit = observe.Series{T: []int64{0, 7300}, V: []int64{0, o.limit}}
		}
		r.Memory = append(r.Memory, nm)
	}
	r.Memory[0].PeakRSS, r.Memory[0].PeakRSSAt, r.Memory[0].PeakRSSRatio = 1056415744, 17752, 0.945
	r.Memory[0].PeakUsage, r.Memory[0].PeakUsageAt, r.Memory[0].PeakUsageRatio = 2235834368, 18001, 2.001
	r.Memory[1].PeakRSS, r.Memory[1].PeakRSSRatio, r.Memory[1].PeakUsage, r.Memory[1].PeakUsageRatio = 65466368, 0.059, 1247412224, 1.116
	r.Memory[2].PeakRSS, r.Memory[2].PeakRSSRatio, r.Memory[2].PeakUsage, r.Memory[2].PeakUsageRatio = 562532352, 0.503, 1740963840, 1.558
}

// cuEvents fills what happened to the nodes, and the deaths nobody asked
// for.
func cuEvents(r *catchup.Result, o cuOpts) {
	restart := r.CatchUp.RestartAtMs
	if restart == 0 {
		restart = cuRestart
	}
	r.Events = []observe.Event{{TMs: 7200, Node: "n1", Kind: catchup.EvKill}, {TMs: 7300, Node: "n1", Kind: catchup.EvWipe, Detail: "store deleted, as a new volume"}}
	if o.limit > 0 {
		r.Events = append(r.Events, observe.Event{TMs: 7300, Node: "n1", Kind: catchup.EvLimit, Detail: bytesize.Bytes(o.limit).String()})
	}
	if !o.noRestart {
		r.Events = append(r.Events, observe.Event{TMs: restart, Node: "n1", Kind: catchup.EvStart})
	}
	var oomAt []int64
	for k := range o.oomKills {
		t := restart + int64(2100*(k+1))
		oomAt = append(oomAt, t)
		r.Events = append(r.Events, observe.Event{TMs: t, Node: "n1", Kind: observe.EvOOMKill, Detail: fmt.Sprintf("OOM kill #%d", k+1)},
			observe.Event{TMs: t, Node: "n1", Kind: observe.EvRestart, Detail: fmt.Sprintf("restart #%d by the runtime", k+1)})
	}
	if o.oomKills > 0 {
		r.Deaths = append(r.Deaths, observe.Deaths{Node: "n1", OOMKills: o.oomKills, Restarts: o.oomKills, Deaths: o.oomKills,
			CrashLoop: o.crashLoop, TimesMs: oomAt})
	}
	if o.otherOOM != "" {
		r.Events = append(r.Events, observe.Event{TMs: 15000, Node: o.otherOOM, Kind: observe.EvOOMKill, Detail: "OOM kill #1"})
		r.Deaths = append(r.Deaths, observe.Deaths{Node: o.otherOOM, OOMKills: 1, Restarts: 1, Deaths: 1, TimesMs: []int64{15000}})
	}
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
	oom := res(catchup.CheckOOMKill, kills > 0, strings.Join(deaths, "; "), map[string]int{"oom_kills": kills})
	if kills == 0 {
		oom.Summary = "no OOM kill (no memory limit set)"
	}
	loops := 0
	if o.crashLoop {
		loops = 1
	}
	loop := res(catchup.CheckCrashLoop, o.crashLoop, "no node died or restarted by itself", map[string]int{"restarts": kills, "deaths": kills, "crash_loops": loops})
	if kills > 0 && !o.crashLoop {
		loop.Verdict, loop.Reason = checker.Unknown, "a node died by itself, below the crash-loop threshold of 2 restarts"
		loop.Summary = loop.Reason
	} else if o.crashLoop {
		loop.Summary = strings.Join(deaths, "; ")
	}
	cu := res(catchup.CheckCatchUp, o.outcome != catchup.OutcomeCurrent, fmt.Sprintf("current %.1fs after the restart (bound %s): %s", o.seconds, o.bound, r.CatchUp.Detail),
		map[string]int{"completed": 1, "ms": int(o.seconds * 1000)})
	if o.outcome != catchup.OutcomeCurrent {
		cu.Summary = fmt.Sprintf("not current after %.1fs (%s, bound %s): %s", o.seconds, o.outcome, o.bound, r.CatchUp.Detail)
		cu.Counts["completed"] = 0
	}
	acked := res(catchup.CheckAckedPresent, o.missing > 0, "all 272971 acknowledged ids present once", map[string]int{"acked": 272971, "read": 272971 - o.missing, "missing": o.missing})
	if o.missing > 0 {
		acked.Summary = fmt.Sprintf("%d of 272971 acknowledged ids missing from the stream (e.g. 1.17)", o.missing)
	}
	mem := res(catchup.CheckMemory, o.jump, "within the bound", map[string]int{catchup.CountTargetPeakRSS: 1 << 30, catchup.CountOtherPeakRSS: 1 << 30})
	if o.jump {
		mem.Summary, mem.Counts = "above the bound", map[string]int{catchup.CountTargetPeakRSS: 2512 << 20, catchup.CountOtherPeakRSS: 86 << 20}
	}
	if o.jump && o.censored {
		mem.Counts[catchup.CountTargetPeakRSS], mem.Counts[catchup.CountTargetCensored] = 1075<<20, 1
		mem.Counts[catchup.CountTargetLimit] = int(o.limit)
	}
	return []checker.Result{oom, loop, cu, mem,
		res(checker.NameRecovery, false, "recovered after 0.0s: all nodes healthy", map[string]int{"recovered": 1}),
		res(catchup.CheckReplicasAgree, false, r.Integrity.ReplicasDetail, map[string]int{"replicas": 3}), acked}
}

// catchupRunOf makes a catch-up run of the cells.
func catchupRunOf(cells ...record.CellResult) record.Result {
	res := record.Result{ID: "cu", Verdict: record.Valid, Command: "chaos run --workload=catchup --seed=1", Seed: 1, Runtime: "docker"}
	res.Spec = record.Spec{Workload: "catchup", Runtime: "docker", Nemeses: []string{"none"}, Seed: 1}
	_ = run.SetSettings(&res.Spec, []workloads.Settings{catchup.Defaults})
	seenV, seenDG := map[string]bool{}, map[bool]bool{}
	for _, c := range cells {
		res.Cells = append(res.Cells, c)
		res.Verdict = record.Worse(res.Verdict, c.Verdict)
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

// writeCatchupRun stores a catch-up run: results.json, run.json and each
// cell's results.json and catchup.json (a *catchup.Result, or an old
// shape; nil is left out).
func writeCatchupRun(t testing.TB, res record.Result, cus ...any) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), res.ID)
	res.Dir = dir
	for i, c := range res.Cells {
		cdir := filepath.Join(dir, c.Name)
		reportstest.WriteJSON(t, filepath.Join(cdir, "results.json"), c)
		if i < len(cus) && !isNil(cus[i]) {
			reportstest.WriteJSON(t, filepath.Join(cdir, catchup.ResultFile), cus[i])
		}
	}
	reportstest.WriteJSON(t, filepath.Join(dir, "results.json"), res)
	reportstest.WriteJSON(t, filepath.Join(dir, "run.json"), res.Spec)
	return dir
}

// oldShape is catchup.json as runs before results.json became the home of
// the checks wrote it: the measurements, the checks and the harness error.
func oldShape(r *catchup.Result, c record.CellResult) *catchup.Result {
	old := *r
	old.Checks, old.Error = c.Checks, c.Error
	return &old
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

func isNil(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case *catchup.Result:
		return v == nil
	}
	return false
}
