package reportstest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// Hand-made kv-update results, shaped like the pipeline's, for the shapes a
// real short run rarely gives: unknown verdicts, harness errors, memory,
// many cells.

// ChecksOpts sets the numbers of a made-up set of checker results.
type ChecksOpts struct {
	Gets, Stale           int
	RejStale, RejSpurious int // wrong-last-sequence rejections after a stale read / with nothing else writing (10164: no anomaly)
	RejSpurious10071      int // rejections with nothing else writing answered 10071: an anomaly
	LostWrites            int
	LinUnknown            string // linearizability undecided, for this reason; "" decided
	StreamIncomplete      bool
	NotRecovered          bool
}

// KVChecks builds the six results the pipeline stores, consistent with o.
func KVChecks(o ChecksOpts) []checker.Result {
	v := func(bad bool) checker.Verdict {
		if bad {
			return checker.Invalid
		}
		return checker.Valid
	}
	stale := checker.Result{Name: kvcheck.NameStaleRead, Verdict: v(o.Stale > 0),
		Counts: map[string]int{kvcheck.CountGets: o.Gets, kvcheck.CountStaleReads: o.Stale, kvcheck.CountKeys: 10, kvcheck.CountKeysWithStaleReads: min(o.Stale, 10)},
		Stats:  map[string]float64{"stale_fraction": float64(o.Stale) / float64(max(o.Gets, 1)), kvcheck.StatStalenessMsP50: 0.4, kvcheck.StatStalenessMsP99: 12.5, kvcheck.StatStalenessMsMax: 40, kvcheck.StatStalenessRevsMax: 6},
		Histograms: map[string][]checker.Bucket{kvcheck.StatStalenessMs: {
			{Label: "<=1ms", Upper: 1, Count: o.Stale * 7 / 10}, {Label: "<=2ms", Upper: 2, Count: o.Stale / 10},
			{Label: "<=5ms", Upper: 5, Count: o.Stale / 10}, {Label: "<=10ms", Upper: 10, Count: o.Stale - o.Stale*9/10},
			{Label: "<=20ms", Upper: 20}, {Label: ">20ms", Open: true}}},
	}
	if o.Stale > 0 {
		stale.Summary = fmt.Sprintf("%d of %d gets were stale", o.Stale, o.Gets)
		stale.Anomalies = []checker.Anomaly{{Kind: "stale_read", Key: "k1", Description: "client 1 get k1 returned revision 40, but revision 41 had been acknowledged 0.4ms earlier"}}
	} else {
		stale.Summary = fmt.Sprintf("no stale reads in %d gets", o.Gets)
	}
	// As the checker judges: a spurious 10164 is counted, not an anomaly.
	spurious := o.RejSpurious + o.RejSpurious10071
	rej := o.RejStale + spurious
	attr := checker.Result{Name: kvcheck.NameAttribution, Verdict: v(o.RejStale+o.RejSpurious10071 > 0),
		Summary: fmt.Sprintf("%d wrong-last-sequence rejections: %d stale_read, 0 concurrent_write, %d spurious", rej, o.RejStale, spurious),
		Counts: map[string]int{kvcheck.CountRejections: rej, kvcheck.CountRejectedStale: o.RejStale, kvcheck.CountRejectedConcur: 0, kvcheck.CountRejectedSpurious: spurious, kvcheck.CountUnattributed: 0,
			"stale_read_10071": o.RejStale, kvcheck.CountRejectedSpurious + "_10164": o.RejSpurious, kvcheck.CountRejectedSpurious + "_10071": o.RejSpurious10071}}
	session := checker.Result{Name: kvcheck.NameSession, Verdict: v(o.Stale > 0), Summary: fmt.Sprintf("%d read-your-writes violations", o.Stale),
		Counts: map[string]int{kvcheck.CountGets: o.Gets, kvcheck.CountRYWViolations: o.Stale, kvcheck.CountMonotonicViolations: o.Stale / 5, "violating_gets": o.Stale}}
	integ := checker.Result{Name: kvcheck.NameIntegrity, Verdict: v(o.LostWrites > 0), Summary: "all acknowledged writes are in the stream",
		Counts: map[string]int{kvcheck.CountAckedWrites: o.Gets, kvcheck.CountLostWrite: o.LostWrites}}
	if o.LostWrites > 0 {
		integ.Summary = fmt.Sprintf("%d acknowledged writes missing from the stream", o.LostWrites)
	} else if o.StreamIncomplete {
		integ.Verdict, integ.Reason, integ.Summary = checker.Unknown, "the stream could not be read back in full", "stream incomplete"
	}
	lin := checker.Result{Name: kvcheck.NameLinearizability, Verdict: v(o.Stale > 0), Summary: "all 10 keys linearizable",
		Counts: map[string]int{kvcheck.CountKeys: 10, kvcheck.CountKeysIllegal: min(o.Stale, 10), kvcheck.CountKeysUnknown: 0}}
	if o.Stale > 0 {
		lin.Summary = fmt.Sprintf("%d of 10 keys not linearizable", min(o.Stale, 10))
	}
	if o.LinUnknown != "" {
		lin.Verdict, lin.Reason, lin.Summary = checker.Unknown, o.LinUnknown, "3 of 10 keys undecided"
		lin.Counts[kvcheck.CountKeysUnknown] = 3
	}
	rec := checker.Result{Name: checker.NameRecovery, Verdict: v(o.NotRecovered), Summary: "recovered after 1.2s", Counts: map[string]int{"recovered": 1}}
	if o.NotRecovered {
		rec.Summary, rec.Counts["recovered"] = "did not recover within 1m0s: n2 has no route to n3", 0
	}
	return []checker.Result{session, stale, attr, integ, lin, rec}
}

// SynthCell is one made-up cell with its files.
type SynthCell struct {
	Res record.CellResult
	Ops []history.Op
	// Nodes is the cell's nodes.jsonl, the observer's readings of every
	// node (observe.File), one line each; nil for none.
	Nodes []observe.Sample
}

// SynthRun is a made-up run.
type SynthRun struct {
	Res   record.Result
	Cells []SynthCell
}

// GenOps makes a single-writer history: clients loop get then update for
// secs seconds; inside [faultFrom, faultTo) ops slow down and a third
// fail; staleEvery > 0 makes every n-th update a 10071 rejection.
func GenOps(seed uint64, secs float64, clients int, faultFrom, faultTo float64, staleEvery int) []history.Op {
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

// Window is a fault window from..to seconds, injected and verified.
func Window(fault string, from, to float64, targets ...string) nemesis.Window {
	return nemesis.Window{Fault: fault, Targets: targets, Start: time.Duration(from * 1e9), End: time.Duration(to * 1e9),
		Inject: 20 * time.Millisecond, Heal: 300 * time.Millisecond, Injected: true, Verified: true,
		Detail: "inject: " + fault + " seen; heal: routes full"}
}

// KVCell fills a CellResult as the pipeline would.
func KVCell(runDir string, spec record.Spec, c record.Cell, checks []checker.Result, ops []history.Op, faults []nemesis.Window) record.CellResult {
	if c.Settings == nil && len(spec.Settings) > 0 {
		c.Settings = spec.Settings[0]
	}
	cr := record.CellResult{Cell: c, Label: c.Label(), Dir: filepath.Join(runDir, c.Name), Runtime: "docker",
		StartedAt: time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC), Faults: faults, Checks: checks,
		Phases: map[string]float64{"cluster_start": 2, "setup": 0.1, "workload": spec.TimeLimit.Seconds(), "recovery": 1.2, "check": 0.5, "teardown": 0.7}}
	cr.Ops = record.CountOps(ops, spec.TimeLimit)
	cr.Stream.Entries, cr.Stream.Complete = cr.Ops.ByType["update"], true
	cr.Recovery = &nemesis.Recovery{Recovered: true, Took: 1200 * time.Millisecond, Detail: "recovered after 1.2s: all nodes healthy"}
	if len(checks) > 0 {
		cr.Verdict = record.VerdictOf(checks)
	}
	return cr
}

// KVSpec is the spec of a made-up kv-update run: Direct Get on and off,
// v2.15.3, no faults, 20 s.
func KVSpec() record.Spec {
	return record.Spec{Workload: "kv-update", Runtime: "docker", Store: "store", TimeLimit: 20 * time.Second,
		DirectGet: []bool{true, false}, ServerVersions: []string{"v2.15.3"}, Nemeses: []string{"none"},
		NemesisInterval: 5 * time.Second, Seed: 42, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute,
		Settings: []json.RawMessage{MustJSON(kvupdate.Options{Bucket: "chaos", Keys: 10, Clients: 10, Pattern: kvupdate.SingleWriter, Replicas: 3, OpTimeout: 2 * time.Second})},
		Command:  "chaos run --runtime=docker --time-limit=20s --seed=42"}
}

// MustJSON marshals v or panics (test fixtures only).
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// SyntheticMatrix is a 2x2 matrix (partition-leader and kill, Direct Get
// on and off) holding every verdict: invalid with stale reads and an
// undecided check, valid, harness error, unknown with memory and an OOM.
func SyntheticMatrix() SynthRun {
	spec := KVSpec()
	spec.Nemeses = []string{"partition-leader", "kill"}
	spec.Command = "chaos run --runtime=docker --nemesis=partition-leader --nemesis=kill --time-limit=20s --seed=42"
	cells := spec.Cells()
	dir := "store/20261130T040000Z-s42"
	res := record.Result{ID: "20261130T040000Z-s42", Dir: dir, Command: spec.Command, Seed: 42, Runtime: "docker",
		StartedAt: time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC), Spec: spec}
	var out SynthRun
	part := []nemesis.Window{Window("partition-leader", 5, 10, "n1"), Window("partition-leader", 15, 20, "n2")}
	kill := []nemesis.Window{Window("kill", 5, 10, "n3"), Window("kill", 15, 20, "n1")}
	kill[1].Verified, kill[1].Detail = false, "heal: n1 did not come back with full routes within 2m0s"

	ops0 := GenOps(1, 20, 5, 5, 10, 25)
	c0 := KVCell(dir, spec, cells[0], KVChecks(ChecksOpts{Gets: 40000, Stale: 1600, RejStale: 1600, LinUnknown: "time bound reached (60s)"}), ops0, part)
	ops1 := GenOps(2, 20, 5, 5, 10, 0)
	c1 := KVCell(dir, spec, cells[1], KVChecks(ChecksOpts{Gets: 40000}), ops1, part)
	c2 := KVCell(dir, spec, cells[2], nil, nil, nil)
	c2.Verdict, c2.Error = record.Error, "start cluster: n2: container exited with code 1 (see logs/n2.log)"
	ops3 := GenOps(3, 20, 5, 5, 10, 0)
	c3 := KVCell(dir, spec, cells[3], KVChecks(ChecksOpts{Gets: 40000, StreamIncomplete: true}), ops3, kill)
	out.Cells = []SynthCell{{Res: c0, Ops: ops0}, {Res: c1, Ops: ops1}, {Res: c2}, {Res: c3, Ops: ops3, Nodes: oomNodes()}}
	for _, c := range out.Cells {
		res.Cells = append(res.Cells, c.Res)
	}
	res.Verdict = record.Valid
	for _, c := range res.Cells {
		res.Verdict = record.Worse(res.Verdict, c.Verdict)
	}
	out.Res = res
	return out
}

// WriteRun stores a made-up run as the pipeline would and returns
// its folder.
func WriteRun(t testing.TB, s SynthRun) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), s.Res.ID)
	WriteJSON(t, filepath.Join(dir, "run.json"), s.Res.Spec)
	WriteJSON(t, filepath.Join(dir, "results.json"), s.Res)
	for _, c := range s.Cells {
		cdir := filepath.Join(dir, c.Res.Name)
		WriteJSON(t, filepath.Join(cdir, "results.json"), c.Res)
		if c.Ops != nil {
			WriteJSONLines(t, filepath.Join(cdir, "history.jsonl"), c.Ops)
		}
		if c.Nodes != nil {
			WriteJSONLines(t, filepath.Join(cdir, observe.File), c.Nodes)
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

// CellOf makes a cell result with the given checks (nil: a harness error).
func CellOf(dg bool, nemesis string, checks ChecksOpts, harness string) record.CellResult {
	spec := KVSpec()
	c := record.Cell{DirectGet: dg, ServerVersion: "v2.15.3", Nemesis: nemesis}
	c.Name = "direct-get-" + record.OnOff(dg)
	if nemesis != "none" {
		c.Name = nemesis + "_" + c.Name
	}
	if harness != "" {
		cr := KVCell("store/x", spec, c, nil, nil, nil)
		cr.Verdict, cr.Error = record.Error, harness
		return cr
	}
	return KVCell("store/x", spec, c, KVChecks(checks), nil, nil)
}

// ResultOf makes a run of the cells; its spec asks for exactly the Direct
// Get settings and nemeses they have.
func ResultOf(cells ...record.CellResult) record.Result {
	res := record.Result{ID: "r", Verdict: record.Valid, Spec: KVSpec()}
	res.Spec.DirectGet, res.Spec.Nemeses = nil, nil
	seenDG, seenN := map[bool]bool{}, map[string]bool{}
	for _, c := range cells {
		res.Cells = append(res.Cells, c)
		res.Verdict = record.Worse(res.Verdict, c.Verdict)
		if !seenDG[c.DirectGet] {
			seenDG[c.DirectGet] = true
			res.Spec.DirectGet = append(res.Spec.DirectGet, c.DirectGet)
		}
		if !seenN[c.Nemesis] {
			seenN[c.Nemesis] = true
			res.Spec.Nemeses = append(res.Spec.Nemeses, c.Nemesis)
		}
	}
	return res
}

// oomNodes are the observer's readings of a cell whose nodes ran under a
// 512 MiB limit for 20 s: memory 4 times a second, n2 climbing to the
// limit and OOM-killed at 12 s (the runtime restarts it between two
// readings, as Docker does), the runtime's state each second.
func oomNodes() []observe.Sample {
	nodes := []string{"n1", "n2", "n3"}
	out := []observe.Sample{{T: 0, Kind: observe.KindStart, Nodes: nodes, Every: 250e6}}
	for _, n := range nodes {
		out = append(out, observe.Sample{T: 0, Node: n, Kind: observe.KindLimit, Bytes: 512 << 20})
	}
	for t := int64(0); t <= 20e9; t += 250e6 {
		for i, n := range nodes {
			b := int64(100<<20) + t/int64(1e9)*int64(10<<20)*int64(i+1)
			if n == "n2" && t >= 12e9 {
				b = int64(60<<20) + (t-12e9)/int64(1e9)*int64(20<<20)
			} else if n == "n2" {
				b = min(int64(512<<20), int64(100<<20)+t/int64(1e9)*int64(40<<20))
			}
			out = append(out, observe.Sample{T: t, Node: n, Kind: observe.KindUsage, Bytes: b})
			if t%1e9 == 0 {
				st := cluster.NodeState{Running: true}
				if n == "n2" && t >= 12e9 {
					st.OOMKills, st.Restarts, st.OOMKilled = 1, 1, true
				}
				out = append(out, observe.Sample{T: t + 1e6, Asked: t, Node: n, Kind: observe.KindState, State: &st})
			}
		}
	}
	return append(out, observe.Sample{T: 20e9 + 1e6, Kind: observe.KindStop})
}
