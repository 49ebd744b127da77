package catchup

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
)

// asObserved stores the cell old (stored before the pipeline observed the
// nodes: its series in catchup.json) as the pipeline stores one now, into
// a fresh folder: catchup.json with the catch-up's own figures and the
// harness's events, naming nodes.jsonl, which holds the same series as the
// observer's readings (each lag sample a reading of the target's copy and
// of the leader's, each OOM kill and restart nobody asked for a rise of
// the runtime's counters; a node whose series were trimmed to their peak
// read once, at its peak).
func asObserved(t *testing.T, old Result, dir string) {
	t.Helper()
	var lines []observe.Sample
	var names []string
	for _, m := range old.Memory {
		names = append(names, m.Node)
		if len(m.RSS.T) == 0 && m.PeakRSS > 0 { // a cell trimmed to its peaks (testdata/slope): one reading at each
			m.RSS.Add(m.PeakRSSAt, m.PeakRSS)
		}
		for _, s := range []struct {
			k observe.Kind
			s observe.Series
		}{{observe.KindUsage, m.Usage}, {observe.KindRSS, m.RSS}, {observe.KindLimit, m.Limit}} {
			for i, at := range s.s.T {
				lines = append(lines, observe.Sample{T: at * 1e6, Node: m.Node, Kind: s.k, Bytes: s.s.V[i]})
			}
		}
	}
	for _, h := range old.Health {
		lines = append(lines, observe.Sample{T: h.TMs * 1e6, Asked: h.TMs*1e6 - 1, Node: h.Node, Kind: observe.KindHealth, Status: h.Status, Err: h.Error})
	}
	lines = append(lines, lagReadings(old)...)
	lines = append(lines, stateReadings(old)...)
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].T < lines[j].T })
	end := int64(1)
	if len(lines) > 0 {
		end = lines[len(lines)-1].T + 1
	}
	start := observe.Sample{Kind: observe.KindStart, Nodes: names, Every: 250e6}
	lines = append(append([]observe.Sample{start}, lines...), observe.Sample{T: end, Kind: observe.KindStop})
	reportstest.WriteJSONLines(t, filepath.Join(dir, observe.File), lines)
	old.Observed = observe.File
	if err := Save(dir, old); err != nil {
		t.Fatal(err)
	}
}

// lagReadings are old's lag samples as readings of the stream's copies:
// the leader's a nanosecond before the target's, and, when no leader was
// known, a failed reading of the node that led last.
func lagReadings(old Result) []observe.Sample {
	var out []observe.Sample
	led := ""
	for _, l := range old.Lag {
		at := l.TMs * 1e6
		if l.Leader != "" {
			led = l.Leader
			out = append(out, observe.Sample{T: at - 1, Node: l.Leader, Kind: observe.KindStream, Stream: &observe.Stream{Name: "S", Has: true,
				Msgs: l.LeaderMsgs, Bytes: l.LeaderBytes, LastSeq: l.LeaderLastSeq, Leader: l.Leader,
				Replicas: []cluster.Peer{{Name: old.Target, Lag: l.ReplicaLag, Current: l.ReplicaCurrent, Offline: l.ReplicaOffline}}}})
		} else if led != "" {
			out = append(out, observe.Sample{T: at - 1, Node: led, Kind: observe.KindStream, Err: "stream info: timeout"})
		}
		out = append(out, observe.Sample{T: at, Node: old.Target, Kind: observe.KindStream, Stream: &observe.Stream{Name: "S", Has: l.TargetHas,
			Msgs: l.TargetMsgs, Bytes: l.TargetBytes, LastSeq: l.TargetLastSeq, Leader: l.Leader}})
	}
	return out
}

// stateReadings are the runtime's state of each node with an event nobody
// asked for: running with no count at the start, then at each event its
// counters risen.
func stateReadings(old Result) []observe.Sample {
	var out []observe.Sample
	seen := map[string]*cluster.NodeState{}
	for _, e := range old.Events {
		if !e.Unasked() {
			continue
		}
		st := seen[e.Node]
		if st == nil {
			st = &cluster.NodeState{Running: true}
			seen[e.Node] = st
			first := *st
			out = append(out, observe.Sample{T: 1, Node: e.Node, Kind: observe.KindState, State: &first})
		}
		switch e.Kind {
		case observe.EvOOMKill:
			st.OOMKills++
		case observe.EvRestart:
			st.Restarts++
		}
		now := *st
		out = append(out, observe.Sample{T: e.TMs * 1e6, Asked: e.TMs*1e6 - 1, Node: e.Node, Kind: observe.KindState, State: &now})
	}
	return out
}

// TestObservedCellsJudgedAlike: every stored catch-up cell of the
// testdata, stored again as the pipeline stores one now (its series in
// nodes.jsonl), loads with the same series and gets the same checks, word
// for word; so do the runs' memory-vs-backlog checks.
func TestObservedCellsJudgedAlike(t *testing.T) {
	cells, _ := filepath.Glob("testdata/*/*/" + ResultFile)
	audit, _ := filepath.Glob("../../cmd/chaos/testdata/audit/cu_min/*/" + ResultFile)
	nested, _ := filepath.Glob("../../cmd/chaos/testdata/audit/cu_min/*/*/" + ResultFile)
	root := t.TempDir()
	runs := map[string][]string{} // run folder -> its cells stored again
	for i, f := range append(append(cells, audit...), nested...) {
		dir := filepath.Dir(f)
		old, err := Load(dir)
		if err != nil || len(old.Memory) == 0 {
			continue // unreadable or without series: judged apart (TestSlopeLeftOut)
		}
		t.Run(dir, func(t *testing.T) {
			// The cell's folder keeps its name: memory-vs-backlog names cells so.
			again := filepath.Join(root, fmt.Sprint(len(runs[filepath.Dir(dir)]), "-", i), filepath.Base(dir))
			asObserved(t, old, again)
			runs[filepath.Dir(dir)] = append(runs[filepath.Dir(dir)], again)
			got, err := Load(again)
			if err != nil {
				t.Fatal(err)
			}
			for i := range old.Memory { // the series; the peaks hand-made cells store are not all filled in
				if o, g := old.Memory[i], got.Memory[i]; o.Node != g.Node || (len(o.RSS.T) > 0 && !sameSeries(o.RSS, g.RSS)) || !sameSeries(o.Usage, g.Usage) || !sameSeries(o.Limit, g.Limit) {
					t.Errorf("memory of %s: %+v, stored again %+v", old.Memory[i].Node, old.Memory[i].NodeMemory, got.Memory[i].NodeMemory)
				}
			}
			if !trimmedToPeaks(old) { // its own checks read the series it no longer holds
				sameChecks(t, buildChecks(&old), buildChecks(&got))
			}
		})
	}
	for run, dirs := range runs {
		if len(dirs) < 2 {
			continue
		}
		olds, _ := filepath.Glob(filepath.Join(run, "*"))
		var oldDirs []string
		for _, d := range olds {
			if fi, err := os.Stat(filepath.Join(d, ResultFile)); err == nil && !fi.IsDir() {
				oldDirs = append(oldDirs, d)
			}
		}
		if len(oldDirs) != len(dirs) {
			continue // a run with cells that do not load is judged apart
		}
		want, _ := workload{}.CheckRun(oldDirs)
		got, _ := workload{}.CheckRun(dirs)
		t.Run(run+" memory-vs-backlog", func(t *testing.T) { sameChecks(t, want, got) })
	}
}

// trimmedToPeaks says a node's RSS series was trimmed away, its peak kept.
func trimmedToPeaks(r Result) bool {
	return slices.ContainsFunc(r.Memory, func(m NodeMemory) bool { return len(m.RSS.T) == 0 && m.PeakRSS > 0 })
}

func sameSeries(a, b observe.Series) bool { return slices.Equal(a.T, b.T) && slices.Equal(a.V, b.V) }

func sameChecks(t *testing.T, want, got []checker.Result) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%d checks, stored again %d", len(want), len(got))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Name != g.Name || w.Verdict != g.Verdict || w.Summary != g.Summary || !reflect.DeepEqual(w.Counts, g.Counts) {
			t.Errorf("%s %s %q %v\nstored again: %s %s %q %v", w.Name, w.Verdict, w.Summary, w.Counts, g.Name, g.Verdict, g.Summary, g.Counts)
		}
	}
}

// TestCellStoresSeriesOnce: a cell the pipeline observed names nodes.jsonl
// in catchup.json and stores there only what is the catch-up's own (no
// memory, lag, health or deaths; of the events, the harness's); Load puts
// the series back from nodes.jsonl, the events nobody asked for and the
// deaths among them, and the checks judge them.
func TestCellStoresSeriesOnce(t *testing.T) {
	old, err := Load("testdata/memory/limit_oom_above_bound")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	asObserved(t, old, dir)
	r := &cell{dir: dir, obs: new(observe.Observer), res: old}
	r.res.Observed = ""
	if err := r.writeFiles(); err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil || json.Unmarshal(b, &stored) != nil {
		t.Fatalf("catchup.json: %v", err)
	}
	for _, k := range []string{"memory", "lag", "health", "deaths"} {
		if _, ok := stored[k]; ok {
			t.Errorf("catchup.json stores %s", k)
		}
	}
	if stored["observed"] != observe.File || len(stored["events"].([]any)) != 5 {
		t.Errorf("catchup.json: observed %v, events %v", stored["observed"], stored["events"])
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Memory) != 3 || len(got.Lag) != len(old.Lag) || len(got.Deaths) != 1 || got.Deaths[0].OOMKills != 1 {
		t.Errorf("loaded back: %d nodes' memory, %d lag samples, deaths %+v", len(got.Memory), len(got.Lag), got.Deaths)
	}
	sameChecks(t, buildChecks(&old), buildChecks(&got))
	// A catchup.json naming a file that is not there is refused.
	if err := os.Remove(filepath.Join(dir, observe.File)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "names the nodes' series in nodes.jsonl, which is missing") {
		t.Errorf("Load without nodes.jsonl: %v", err)
	}
}
