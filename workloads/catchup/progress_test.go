package catchup

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

func TestProgressAcrossDeaths(t *testing.T) {
	// back is a reading of the target holding seq, the leader at 1000.
	back := func(ms int64, seq uint64) LagSample {
		return LagSample{TMs: ms, TargetHas: seq > 0, TargetLastSeq: seq, LeaderLastSeq: 1000}
	}
	loop := []observe.Deaths{{Node: "n2", OOMKills: 3, Restarts: 3, Deaths: 3, CrashLoop: true, TimesMs: []int64{1000, 2000, 3000}}}
	cases := []struct {
		name   string
		lag    []LagSample
		deaths []observe.Deaths
		want   string // "" for no text
	}{
		{"no death", []LagSample{back(500, 10)}, nil, ""},
		{"another node died", []LagSample{back(500, 10)},
			[]observe.Deaths{{Node: "n1", OOMKills: 1, Restarts: 1, Deaths: 1, TimesMs: []int64{1000}}}, ""},
		{"died, never restarted", []LagSample{back(500, 10)},
			[]observe.Deaths{{Node: "n2", OOMKills: 1, Deaths: 1, TimesMs: []int64{1000}}}, ""},
		// The reading before each death and the ones while the stream is
		// not shown yet are skipped: the first one after, with the stream.
		{"gaining", []LagSample{back(900, 300), back(1100, 0), back(1300, 250), back(1400, 280),
			back(2200, 480), back(3100, 0), back(3400, 700)}, loop,
			"n2's first reading after each death showed last seq 250, 480, 700 (the leader's 1000 at the last): each time more"},
		{"the report's loop: back holding the same", []LagSample{back(1300, 250), back(2200, 250), back(3400, 250)}, loop,
			"showed last seq 250, 250, 250 (the leader's 1000 at the last): not more each time"},
		{"a restart not seen before the next death", []LagSample{back(1300, 250), back(3400, 700)}, loop,
			"showed last seq 250, not seen, 700 (the leader's 1000 at the last): too few readings"},
		{"never back", []LagSample{back(900, 300), back(1100, 0)}, loop,
			"n2's readings never showed the stream after a death"},
		{"one death, back", []LagSample{back(1300, 250)},
			[]observe.Deaths{{Node: "n2", OOMKills: 1, Restarts: 1, Deaths: 1, TimesMs: []int64{1000}}},
			"showed last seq 250 (the leader's 1000 at the last): too few readings"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := progressAcrossDeaths(tc.lag, tc.deaths, "n2")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

// The crash-loop check says the progress beside the deaths, whatever its
// verdict.
func TestCrashLoopCheckSaysTheProgress(t *testing.T) {
	loop := []observe.Deaths{{Node: "n2", OOMKills: 3, Restarts: 3, Deaths: 3, CrashLoop: true, TimesMs: []int64{1000, 2000, 3000}}}
	c := crashLoopCheck(loop, 3, true, "n2's first reading after each death showed last seq 1, 2, 3")
	if !strings.Contains(c.Summary, "CRASH LOOP") || !strings.Contains(c.Summary, "showed last seq 1, 2, 3") {
		t.Errorf("summary %q", c.Summary)
	}
	two := []observe.Deaths{{Node: "n2", OOMKills: 2, Restarts: 2, Deaths: 2, TimesMs: []int64{1000, 2000}}}
	c = crashLoopCheck(two, 3, true, "n2's first reading after each death showed last seq 1, 2")
	if !strings.Contains(c.Summary, "below the crash-loop threshold") || !strings.Contains(c.Summary, "showed last seq 1, 2") {
		t.Errorf("summary %q", c.Summary)
	}
}
