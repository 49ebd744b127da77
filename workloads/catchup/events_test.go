package catchup

import (
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// series builds state samples of one node every 250 ms from a compact
// script: each step is (running, oomKills, restarts).
func series(node string, from int64, steps ...[3]int) []observe.StateSample {
	var out []observe.StateSample
	for i, s := range steps {
		out = append(out, observe.StateSample{TMs: from + int64(i)*250, Node: node, NodeState: cluster.NodeState{
			Running: s[0] == 1, OOMKills: s[1], Restarts: s[2], OOMKilled: s[1] > 0 && s[0] == 0, ExitCode: 137 * (1 - s[0])}})
	}
	return out
}

func TestDetectEventsAndCrashLoop(t *testing.T) {
	up, down := 1, 0
	asked := []observe.Event{{TMs: 1000, Node: "n3", Kind: EvKill}, {TMs: 1010, Node: "n3", Kind: EvWipe}, {TMs: 3000, Node: "n3", Kind: EvStart}}
	// The harness kills n3 at 1 s and starts it at 3 s; nothing else happens.
	clean := append(series("n1", 0, [3]int{up, 0, 0}, [3]int{up, 0, 0}, [3]int{up, 0, 0}),
		series("n3", 750,
			[3]int{up, 0, 0}, [3]int{down, 0, 0}, [3]int{down, 0, 0}, [3]int{down, 0, 0}, // killed (asked)
			[3]int{down, 0, 0}, [3]int{down, 0, 0}, [3]int{down, 0, 0}, [3]int{down, 0, 0},
			[3]int{down, 0, 0}, [3]int{up, 0, 0}, [3]int{up, 0, 0})...)
	// The same, then the kernel kills n3 three times and Docker restarts it:
	// some deaths fall between two samples (only the counters move), one is
	// seen down.
	loop := append(append([]observe.StateSample{}, clean...), series("n3", 3500,
		[3]int{up, 1, 1},   // OOM kill and restart between samples
		[3]int{up, 1, 1},   //
		[3]int{down, 2, 1}, // seen down after the second kill
		[3]int{up, 2, 2},   // restarted
		[3]int{up, 3, 3},   // third kill, restarted
	)...)
	// One death the runtime restarted, not a loop.
	once := append(append([]observe.StateSample{}, clean...), series("n3", 3500, [3]int{up, 0, 1}, [3]int{up, 0, 1})...)

	for _, tc := range []struct {
		name              string
		samples           []observe.StateSample
		oom, restarts     int
		crashLoop         bool
		verdictOOM, loopV checker.Verdict
	}{
		{"clean", clean, 0, 0, false, checker.Valid, checker.Valid},
		{"oom crash loop", loop, 3, 3, true, checker.Invalid, checker.Invalid},
		{"one restart", once, 0, 1, false, checker.Valid, checker.Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := detectEvents(tc.samples, asked)
			for _, e := range ev {
				if e.Kind == observe.EvDied && e.TMs < 3000 {
					t.Errorf("the asked kill was taken for a death: %+v", e)
				}
			}
			deaths := observe.Summarize(append(ev, asked...), 2)
			var n3 observe.Deaths
			for _, d := range deaths {
				if d.Node == "n3" {
					n3 = d
				} else {
					t.Errorf("deaths on %s: %+v", d.Node, d)
				}
			}
			if n3.OOMKills != tc.oom || n3.Restarts != tc.restarts || n3.CrashLoop != tc.crashLoop {
				t.Errorf("n3 = %+v; want %d OOM kills, %d restarts, crash loop %v", n3, tc.oom, tc.restarts, tc.crashLoop)
			}
			if tc.crashLoop {
				// Every kill with its time, in order.
				if len(n3.TimesMs) != 3 || n3.TimesMs[0] != 3500 || n3.TimesMs[2] != 4500 {
					t.Errorf("times %v, want the three kills at 3.5s, 4.0s, 4.5s", n3.TimesMs)
				}
				if d := n3.Describe(); !strings.Contains(d, "CRASH LOOP") || !strings.Contains(d, "3.5s") {
					t.Errorf("Describe = %q", d)
				}
			}
			if c := oomCheck(deaths, 48<<20, "n3"); c.Verdict != tc.verdictOOM {
				t.Errorf("oom-kill check %s: %s", c.Verdict, c.Summary)
			}
			if c := crashLoopCheck(deaths, 2, true, ""); c.Verdict != tc.loopV {
				t.Errorf("crash-loop check %s: %s", c.Verdict, c.Summary)
			}
		})
	}
}

func TestDetectEventsUnaskedDeathWithoutRestart(t *testing.T) {
	// AutoRestart off: the node just dies and stays down.
	ss := series("n2", 0, [3]int{1, 0, 0}, [3]int{0, 1, 0}, [3]int{0, 1, 0})
	ev := detectEvents(ss, nil)
	var kinds []string
	for _, e := range ev {
		kinds = append(kinds, string(e.Kind))
	}
	if strings.Join(kinds, ",") != "oom-kill,died" {
		t.Fatalf("events %v, want oom-kill,died", kinds)
	}
	d := observe.Summarize(ev, 2)
	if len(d) != 1 || d[0].Deaths != 1 || d[0].CrashLoop {
		t.Errorf("Summarize = %+v: one death, no loop", d)
	}
	if c := crashLoopCheck(d, 2, false, ""); c.Verdict != checker.Unknown || !strings.Contains(c.Summary, "AutoRestart") {
		t.Errorf("crash-loop without AutoRestart = %s %q, want unknown naming AutoRestart", c.Verdict, c.Summary)
	}
	// Samples that failed to read are skipped, not taken for a death.
	withErr := []observe.StateSample{
		{TMs: 0, Node: "n1", NodeState: cluster.NodeState{Running: true}},
		{TMs: 250, Node: "n1", Err: "inspect: timeout"},
		{TMs: 500, Node: "n1", NodeState: cluster.NodeState{Running: true}},
	}
	if ev := detectEvents(withErr, nil); len(ev) != 0 {
		t.Errorf("events from an unreadable sample: %+v", ev)
	}
}

func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  checker.Result
		want checker.Verdict
	}{
		{"current", catchUpCheck(CatchUp{Outcome: OutcomeCurrent, Seconds: 3, Bound: time.Minute}), checker.Valid},
		{"timeout", catchUpCheck(CatchUp{Outcome: OutcomeTimeout, Seconds: 60, Bound: time.Minute}), checker.Invalid},
		{"crash loop", catchUpCheck(CatchUp{Outcome: OutcomeCrashLoop}), checker.Invalid},
		{"down", catchUpCheck(CatchUp{Outcome: OutcomeDown}), checker.Invalid},
		{"interrupted", catchUpCheck(CatchUp{Outcome: OutcomeInterrupted}), checker.Unknown},
		{"not run", catchUpCheck(CatchUp{}), checker.Unknown},
		{"acked all", ackedCheck(Integrity{Acked: 10, Read: 12, Distinct: 12, Unacked: 2, Complete: true}), checker.Valid},
		{"acked missing", ackedCheck(Integrity{Acked: 10, Read: 9, Missing: 1, Complete: true, MissingExamples: []string{"0.4"}}), checker.Invalid},
		{"acked duplicate", ackedCheck(Integrity{Acked: 10, Read: 11, Dups: 1, Complete: true}), checker.Invalid},
		{"acked malformed", ackedCheck(Integrity{Acked: 10, Read: 11, Malformed: 1, Complete: true}), checker.Invalid},
		{"acked incomplete", ackedCheck(Integrity{Acked: 10, Read: 5, Missing: 5}), checker.Unknown},
		{"acked not read", ackedCheck(Integrity{}), checker.Unknown},
		{"replicas agree", agreementCheck(Integrity{Replicas: []observe.ReplicaState{{Node: "n1"}}, ReplicasAgree: true, ReplicasDetail: "all the same"}), checker.Valid},
		{"replicas differ", agreementCheck(Integrity{Replicas: []observe.ReplicaState{{Node: "n1"}, {Node: "n2"}}, ReplicasDetail: "replicas differ"}), checker.Invalid},
		{"replica unreadable", agreementCheck(Integrity{Replicas: []observe.ReplicaState{{Node: "n1", Err: "x"}}, ReplicasDetail: "n1 could not be read"}), checker.Unknown},
	} {
		if tc.got.Verdict != tc.want || tc.got.Summary == "" || tc.got.Counts == nil {
			t.Errorf("%s: %s %q, want %s with a summary and counts", tc.name, tc.got.Verdict, tc.got.Summary, tc.want)
		}
		if tc.got.Verdict == checker.Unknown && tc.got.Reason == "" {
			t.Errorf("%s: unknown without a reason", tc.name)
		}
	}
}

// A node seen down is the harness's kill whenever that kill is its last
// asked kill or start and it was not seen down since, however long the
// kill took; a death after the harness started it again is its own.
func TestDetectEventsAskedKillTakesItsTime(t *testing.T) {
	up, down := [3]int{1, 0, 0}, [3]int{0, 0, 0}
	kill := observe.Event{TMs: 3300, Node: "n1", Kind: EvKill}
	start := observe.Event{TMs: 5000, Node: "n1", Kind: EvStart}
	for _, tc := range []struct {
		name    string
		samples []observe.StateSample
		asked   []observe.Event
		died    int
	}{
		// The clean-clone case: a loaded daemon carried the kill out 3.3 s
		// after it was asked; the node was still running 1.7 s after.
		{"slow kill", series("n1", 3000, up, up, up, up, up, up, up, up, up, up, up, up, up, up, down, down), []observe.Event{kill}, 0},
		{"down before the kill", series("n1", 0, up, up, down, down), []observe.Event{kill}, 1},
		{"no kill asked", series("n1", 3000, up, down), nil, 1},
		{"down again after a runtime restart", series("n1", 3250, up, down, up, down), []observe.Event{kill}, 1},
		{"died after the harness started it", series("n1", 5250, up, up, down), []observe.Event{kill, start}, 1},
		{"the start listed before the kill", series("n1", 5250, up, up, down), []observe.Event{start, kill}, 1},
		{"another node's kill", series("n2", 3250, up, down), []observe.Event{kill}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, e := range detectEvents(tc.samples, tc.asked) {
				if e.Kind == observe.EvDied {
					n++
				}
			}
			if n != tc.died {
				t.Errorf("%d deaths, want %d", n, tc.died)
			}
		})
	}
}
