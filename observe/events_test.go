package observe

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// states builds one node's state readings every 250 ms from a compact
// script: each step is (running, oomKills, restarts).
func states(node string, from int64, steps ...[3]int) []StateSample {
	var out []StateSample
	for i, s := range steps {
		t := from + int64(i)*250
		out = append(out, StateSample{TMs: t, AskedMs: t - 5, Node: node, NodeState: cluster.NodeState{
			Running: s[0] == 1, OOMKills: s[1], Restarts: s[2], OOMKilled: s[1] > 0 && s[0] == 0, ExitCode: 137 * (1 - s[0])}})
	}
	return out
}

// TestDetectEvents: one event per increase of each counter, counted from
// zero (an increase already in the first reading is one), a death when a
// node is seen down after running unless the harness asked, each with the
// span it happened in (from the previous reading's asking); failed
// readings are skipped.
func TestDetectEvents(t *testing.T) {
	up, down := 1, 0
	ss := append(states("n3", 1000,
		[3]int{up, 0, 0}, [3]int{up, 1, 1}, // OOM kill and restart between readings
		[3]int{down, 2, 1}, // seen down after the second kill
		[3]int{up, 2, 2},   // restarted
	), states("n1", 0, [3]int{up, 0, 1}, [3]int{down, 0, 1})...)
	ss = append(ss, StateSample{TMs: 1100, Node: "n1", Err: "inspect: timeout"})
	var kinds []string
	for _, e := range DetectEvents(ss, nil) {
		kinds = append(kinds, e.Node+" "+string(e.Kind)+" "+Secs(e.FromMs)+"-"+Secs(e.TMs))
	}
	want := "n1 restart 0.0s-0.0s, n1 died 0.0s-0.2s, n3 oom-kill 1.0s-1.2s, n3 restart 1.0s-1.2s, n3 oom-kill 1.2s-1.5s, n3 died 1.2s-1.5s, n3 restart 1.5s-1.8s"
	if got := strings.Join(kinds, ", "); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	// The harness's kill is no death.
	asked := func(prev, cur StateSample) bool { return cur.Node == "n1" }
	for _, e := range DetectEvents(ss, asked) {
		if e.Kind == EvDied && e.Node == "n1" {
			t.Errorf("an asked kill taken for a death: %+v", e)
		}
	}
}

// TestSummarize: each node's deaths counted once whichever way they were
// seen, a crash loop from the threshold on, the times of the most seen
// kind.
func TestSummarize(t *testing.T) {
	ev := []Event{
		{TMs: 3500, Node: "n3", Kind: EvOOMKill}, {TMs: 3500, Node: "n3", Kind: EvRestart},
		{TMs: 4000, Node: "n3", Kind: EvOOMKill}, {TMs: 4000, Node: "n3", Kind: EvDied}, {TMs: 4250, Node: "n3", Kind: EvRestart},
		{TMs: 4500, Node: "n3", Kind: EvOOMKill}, {TMs: 4500, Node: "n3", Kind: EvRestart},
		{TMs: 9000, Node: "n1", Kind: EvDied}, {TMs: 100, Node: "n2", Kind: "kill"},
	}
	d := Summarize(ev, 3)
	if len(d) != 2 || d[0].Node != "n1" || d[0].Deaths != 1 || d[0].CrashLoop || d[1].OOMKills != 3 || d[1].Restarts != 3 || !d[1].CrashLoop || d[1].Deaths != 3 {
		t.Fatalf("Summarize = %+v", d)
	}
	if s := d[1].Describe(); s != "n3: 3 OOM kill(s), 3 restart(s) by the runtime, CRASH LOOP at 3.5s, 4.0s, 4.5s" {
		t.Errorf("Describe = %q", s)
	}
	if d := Summarize(ev, 4); d[1].CrashLoop {
		t.Error("3 restarts a crash loop at a threshold of 4")
	}
}

func TestSeriesPeaks(t *testing.T) {
	var s Series
	for i, v := range []int64{5, 9, 3, 12, 7} {
		s.Add(int64(i*1000), v)
	}
	if v, at := s.Peak(); v != 12 || at != 3000 {
		t.Errorf("Peak = %d at %d", v, at)
	}
	if v, at := s.PeakBetween(0, 2500); v != 9 || at != 1000 {
		t.Errorf("PeakBetween(0, 2500) = %d at %d", v, at)
	}
	if _, at := s.PeakBetween(10_000, 20_000); at != -1 {
		t.Error("PeakBetween an empty window found something")
	}
	if s.At(2500) != 3 || s.At(-1) != 0 || s.At(99_999) != 7 {
		t.Errorf("At: %d %d %d", s.At(2500), s.At(-1), s.At(99_999))
	}
}
