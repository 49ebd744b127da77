package reports

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// Hand-made results, shaped like the pipeline's, for the shapes a real
// short run rarely gives: unknown verdicts, harness errors, memory, many
// cells.

// checksOpts sets the numbers of a made-up set of checker results.
type checksOpts struct {
	gets, stale      int
	rejStale, rejSpu int
	lostWrites       int
	linUnknown       string // reason; "" decided
	streamIncomplete bool
	notRecovered     bool
}

// mkChecks builds the six results the pipeline stores, consistent with o.
func mkChecks(o checksOpts) []checker.Result {
	v := func(bad bool) checker.Verdict {
		if bad {
			return checker.Invalid
		}
		return checker.Valid
	}
	stale := checker.Result{Name: ckStale, Verdict: v(o.stale > 0),
		Counts: map[string]int{"gets": o.gets, "stale_reads": o.stale, "keys": 10, "keys_with_stale_reads": min(o.stale, 10)},
		Stats:  map[string]float64{"stale_fraction": float64(o.stale) / float64(max(o.gets, 1)), "staleness_ms_p50": 0.4, "staleness_ms_p99": 12.5, "staleness_ms_max": 40, "staleness_revs_max": 6},
		Histograms: map[string][]checker.Bucket{"staleness_ms": {
			{Label: "<=1ms", Upper: 1, Count: o.stale * 7 / 10}, {Label: "<=2ms", Upper: 2, Count: o.stale / 10},
			{Label: "<=5ms", Upper: 5, Count: o.stale / 10}, {Label: "<=10ms", Upper: 10, Count: o.stale - o.stale*9/10},
			{Label: "<=20ms", Upper: 20}, {Label: ">20ms", Open: true}}},
	}
	if o.stale > 0 {
		stale.Summary = fmt.Sprintf("%d of %d gets were stale", o.stale, o.gets)
		stale.Anomalies = []checker.Anomaly{{Kind: "stale_read", Key: "k1", Description: "client 1 get k1 returned revision 40, but revision 41 had been acknowledged 0.4ms earlier"}}
	} else {
		stale.Summary = fmt.Sprintf("no stale reads in %d gets", o.gets)
	}
	rej := o.rejStale + o.rejSpu
	attr := checker.Result{Name: ckAttribution, Verdict: v(rej > 0),
		Summary: fmt.Sprintf("%d wrong-last-sequence rejections: %d stale_read, 0 concurrent_write, %d spurious", rej, o.rejStale, o.rejSpu),
		Counts: map[string]int{"rejections": rej, "stale_read": o.rejStale, "concurrent_write": 0, "spurious": o.rejSpu, "unattributed": 0,
			"stale_read_10071": o.rejStale, "spurious_10164": o.rejSpu}}
	session := checker.Result{Name: ckSession, Verdict: v(o.stale > 0), Summary: fmt.Sprintf("%d read-your-writes violations", o.stale),
		Counts: map[string]int{"gets": o.gets, "ryw_violations": o.stale, "monotonic_violations": o.stale / 5, "violating_gets": o.stale}}
	integ := checker.Result{Name: ckIntegrity, Verdict: v(o.lostWrites > 0), Summary: "all acknowledged writes are in the stream",
		Counts: map[string]int{"acked_writes": o.gets, "lost_write": o.lostWrites}}
	if o.lostWrites > 0 {
		integ.Summary = fmt.Sprintf("%d acknowledged writes missing from the stream", o.lostWrites)
	} else if o.streamIncomplete {
		integ.Verdict, integ.Reason, integ.Summary = checker.Unknown, "the stream could not be read back in full", "stream incomplete"
	}
	lin := checker.Result{Name: ckLinear, Verdict: v(o.stale > 0), Summary: "all 10 keys linearizable",
		Counts: map[string]int{"keys": 10, "keys_illegal": min(o.stale, 10), "keys_unknown": 0}}
	if o.linUnknown != "" {
		lin.Verdict, lin.Reason, lin.Summary = checker.Unknown, o.linUnknown, "3 of 10 keys undecided"
		lin.Counts["keys_unknown"] = 3
	}
	rec := checker.Result{Name: ckRecovery, Verdict: v(o.notRecovered), Summary: "recovered after 1.2s", Counts: map[string]int{"recovered": 1}}
	if o.notRecovered {
		rec.Summary, rec.Counts["recovered"] = "did not recover within 1m0s: n2 has no route to n3", 0
	}
	return []checker.Result{session, stale, attr, integ, lin, rec}
}

// synthCell is one made-up cell with its files.
type synthCell struct {
	res run.CellResult
	ops []history.Op
	mem *Memory
}

type synthRun struct {
	res   run.Result
	cells []synthCell
}

// genOps makes a single-writer history: clients loop get then update for
// secs seconds; inside [faultFrom, faultTo) ops slow down and a third
// fail; staleEvery > 0 makes every n-th update a 10071 rejection.
func genOps(seed uint64, secs float64, clients int, faultFrom, faultTo float64, staleEvery int) []history.Op {
	rng := rand.New(rand.NewPCG(seed, 1))
	var ops []history.Op
	for c := 0; c < clients; c++ {
		t := int64(rng.IntN(1e6))
		rev := uint64(0)
		for n := 0; float64(t) < secs*1e9; n++ {
			inFault := float64(t) >= faultFrom*1e9 && float64(t) < faultTo*1e9
			lat := int64(2e6 + rng.IntN(4e6))
			if inFault {
				lat = int64(50e6 + rng.IntN(400e6))
			}
			op := history.Op{Client: c, Node: fmt.Sprintf("n%d", c%3+1), Key: fmt.Sprintf("k%d", c), Invoke: t, Complete: t + lat, Outcome: history.OK}
			if n%2 == 0 {
				op.Type, op.Rev = history.Get, rev
			} else {
				op.Type, op.ExpectedRev = history.Update, rev
				rev++
				op.Rev = rev
				switch {
				case inFault && rng.IntN(3) == 0:
					op.Outcome, op.Err, op.Rev = history.Info, history.ErrTimeout, 0
				case inFault && rng.IntN(4) == 0:
					op.Outcome, op.Err, op.Rev = history.Fail, history.ErrUnavailable, 0
				case staleEvery > 0 && n%staleEvery == 1:
					op.Outcome, op.Err, op.ErrCode, op.Rev = history.Fail, history.ErrWrongLastSeq, 10071, 0
				}
			}
			ops = append(ops, op)
			t = op.Complete + int64(rng.IntN(1e6))
		}
	}
	return ops
}

func window(fault string, from, to float64, targets ...string) nemesis.Window {
	return nemesis.Window{Fault: fault, Targets: targets, Start: time.Duration(from * 1e9), End: time.Duration(to * 1e9),
		Inject: 20 * time.Millisecond, Heal: 300 * time.Millisecond, Injected: true, Verified: true,
		Detail: "inject: " + fault + " seen; heal: routes full"}
}

// mkCell fills a CellResult as the pipeline would.
func mkCell(runDir string, spec run.Spec, c run.Cell, checks []checker.Result, ops []history.Op, faults []nemesis.Window) run.CellResult {
	cr := run.CellResult{Cell: c, Label: c.Label(), Dir: filepath.Join(runDir, c.Name), Runtime: "docker",
		StartedAt: time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC), Faults: faults, Checks: checks,
		Phases: map[string]float64{"cluster_start": 2, "setup": 0.1, "workload": spec.TimeLimit.Seconds(), "recovery": 1.2, "check": 0.5, "teardown": 0.7}}
	if cr.Settings == nil && len(spec.Settings) > 0 {
		cr.Settings = spec.Settings[0]
	}
	cr.Ops = run.CountOps(ops, spec.TimeLimit)
	cr.Stream.Entries, cr.Stream.Complete = cr.Ops.ByType["update"], true
	cr.Recovery = &nemesis.Recovery{Recovered: true, Took: 1200 * time.Millisecond, Detail: "recovered after 1.2s: all nodes healthy"}
	if len(checks) > 0 {
		cr.Verdict = run.VerdictOf(checks)
	}
	return cr
}

func baseSpec(id string) run.Spec {
	return run.Spec{Workload: "kv-update", Runtime: "docker", Store: "store", TimeLimit: 20 * time.Second,
		DirectGet: []bool{true, false}, ServerVersions: []string{"v2.15.3"}, Nemeses: []string{"none"},
		NemesisInterval: 5 * time.Second, Seed: 42, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute,
		Settings: []json.RawMessage{mustJSON(kvupdate.Options{Bucket: "chaos", Keys: 10, Clients: 10, Pattern: kvupdate.SingleWriter, Replicas: 3, OpTimeout: 2 * time.Second})},
		Command:  "chaos run --runtime=docker --time-limit=20s --seed=42"}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// syntheticMatrix is a 2x2 matrix (partition-leader and kill, Direct Get
// on and off) holding every verdict: invalid with stale reads and an
// undecided check, valid, harness error, unknown with memory and an OOM.
func syntheticMatrix() synthRun {
	spec := baseSpec("m")
	spec.Nemeses = []string{"partition-leader", "kill"}
	spec.Command = "chaos run --runtime=docker --nemesis=partition-leader --nemesis=kill --time-limit=20s --seed=42"
	cells := spec.Cells()
	dir := "store/20261130T040000Z-s42"
	res := run.Result{ID: "20261130T040000Z-s42", Dir: dir, Command: spec.Command, Seed: 42, Runtime: "docker",
		StartedAt: time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC), Spec: spec}
	var out synthRun
	part := []nemesis.Window{window("partition-leader", 5, 10, "n1"), window("partition-leader", 15, 20, "n2")}
	kill := []nemesis.Window{window("kill", 5, 10, "n3"), window("kill", 15, 20, "n1")}
	kill[1].Verified, kill[1].Detail = false, "heal: n1 did not come back with full routes within 2m0s"

	ops0 := genOps(1, 20, 5, 5, 10, 25)
	c0 := mkCell(dir, spec, cells[0], mkChecks(checksOpts{gets: 40000, stale: 1600, rejStale: 1600, linUnknown: "time bound reached (60s)"}), ops0, part)
	ops1 := genOps(2, 20, 5, 5, 10, 0)
	c1 := mkCell(dir, spec, cells[1], mkChecks(checksOpts{gets: 40000}), ops1, part)
	c2 := mkCell(dir, spec, cells[2], nil, nil, nil)
	c2.Verdict, c2.Error = run.Error, "start cluster: n2: container exited with code 1 (see logs/n2.log)"
	ops3 := genOps(3, 20, 5, 5, 10, 0)
	c3 := mkCell(dir, spec, cells[3], mkChecks(checksOpts{gets: 40000, streamIncomplete: true}), ops3, kill)
	mem := &Memory{LimitBytes: 512 << 20, OOMKills: []OOMKill{{Node: "n2", T: 12e9, Detail: "memory limit 512MiB"}}}
	for i, n := range []string{"n1", "n2", "n3"} {
		nm := NodeMemory{Node: n}
		for t := int64(0); t <= 20e9; t += 250e6 {
			b := int64(100<<20) + t/int64(1e9)*int64(10<<20)*int64(i+1)
			if n == "n2" && t >= 12e9 {
				b = int64(60<<20) + (t-12e9)/int64(1e9)*int64(20<<20)
			} else if n == "n2" {
				b = min(int64(512<<20), int64(100<<20)+t/int64(1e9)*int64(40<<20))
			}
			nm.Samples = append(nm.Samples, MemSample{T: t, Bytes: b})
		}
		mem.Nodes = append(mem.Nodes, nm)
	}
	out.cells = []synthCell{{res: c0, ops: ops0}, {res: c1, ops: ops1}, {res: c2}, {res: c3, ops: ops3, mem: mem}}
	for _, c := range out.cells {
		res.Cells = append(res.Cells, c.res)
	}
	res.Verdict = run.Valid
	for _, c := range res.Cells {
		res.Verdict = worse(res.Verdict, c.Verdict)
	}
	out.res = res
	return out
}

// writeSyntheticRun stores a made-up run as the pipeline would and returns
// its folder.
func writeSyntheticRun(t testing.TB, s synthRun) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), s.res.ID)
	writeJSONFile(t, filepath.Join(dir, "run.json"), s.res.Spec)
	writeJSONFile(t, filepath.Join(dir, "results.json"), s.res)
	for _, c := range s.cells {
		cdir := filepath.Join(dir, c.res.Name)
		writeJSONFile(t, filepath.Join(cdir, "results.json"), c.res)
		if c.ops != nil {
			writeJSONLines(t, filepath.Join(cdir, "history.jsonl"), c.ops)
		}
		if c.mem != nil {
			writeJSONFile(t, filepath.Join(cdir, MemoryFile), c.mem)
		}
		for _, n := range []string{"n1", "n2", "n3"} {
			p := filepath.Join(cdir, "logs", n+".log")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("[1] [INF] Starting nats-server\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}
