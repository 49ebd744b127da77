package catchup

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/internal/latency"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// The terminal summary names the catch-up's outcome, the target's peak,
// the deaths, publishing and the log lines; a cell that never restarted
// prints no catch-up line and says there were no deaths.
func TestPrint(t *testing.T) {
	r := Result{Options: Defaults, Target: "n1", Phases: []PhaseTime{{Name: PhaseFill, Seconds: 12.5}, {Name: PhaseCatchup, Seconds: 8}},
		CatchUp: CatchUp{RestartAtMs: 20_000, Outcome: OutcomeCrashLoop, Seconds: 8, MaxBehind: 4096, Detail: "n1 restarted by the runtime 3 times"},
		Memory:  []NodeMemory{{NodeMemory: observe.NodeMemory{Node: "n1"}, PeakRSS: 1 << 30, PeakRSSRatio: 0.5, PeakRSSAt: 25_000}},
		Deaths:  []observe.Deaths{{Node: "n1", OOMKills: 3, Restarts: 3, CrashLoop: true}},
		Publish: PublishSummary{Sent: 10, Acked: 9, TimedOut: 1, Latency: map[Phase]latency.Summary{PhaseCatchup: {Count: 4, P99Ms: 12.5}},
			Errors: map[Phase]map[string]int64{PhaseCatchup: {client.ErrNameTimeout: 1}}},
		LogLines: []LogMatch{{Node: "n1", Pattern: "Catchup for stream", Count: 7}},
	}
	var b bytes.Buffer
	Print(&b, r)
	for _, want := range []string{"phases: fill 12.5s, catchup 8.0s", "catch-up of n1: crash-loop after 8.0s", "at most 4096 msgs behind: n1 restarted",
		"n1 peak from the restart to the heal: rss 1GiB (0.50x the stream) at 25.0s", "deaths: n1", "9 acked", "while catching up p99 12.5ms",
		"errors timeout 1", `log n1: "Catchup for stream" x7`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	Print(&b, Result{Options: Defaults})
	if out := b.String(); strings.Contains(out, "catch-up of") || !strings.Contains(out, "deaths: none") {
		t.Errorf("a cell that never restarted:\n%s", out)
	}
}
