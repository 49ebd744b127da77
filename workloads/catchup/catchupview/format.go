package catchupview

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// How the catch-up page says sizes, peaks, outcomes, phases and events.

func peakShort(v int64, ratio float64) string {
	if v <= 0 {
		return "not measured"
	}
	s := reports.FormatBytes(float64(v))
	if ratio > 0 {
		s += " (" + reports.FormatRatio(ratio) + ")"
	}
	return s
}

// outcomeWords says why a catch-up did not finish.
func outcomeWords(o string) string { return cmp.Or(outcomeNames[o], o) }

var outcomeNames = map[string]string{
	catchup.OutcomeTimeout: "the bound ran out", catchup.OutcomeCrashLoop: "crash loop", catchup.OutcomeDown: "the node stayed down",
}

var phaseNames = map[catchup.Phase]string{
	catchup.PhaseFill: "fill", catchup.PhaseDown: "target down", catchup.PhaseCatchup: "catch-up",
	catchup.PhaseSettle: "settle", catchup.PhaseHeal: "heal", catchup.PhaseVerify: "read back",
}

var eventNames = map[observe.EventKind]string{
	catchup.EvKill: "killed (SIGKILL, by the harness)", catchup.EvWipe: "store wiped (by the harness)",
	catchup.EvStart: "started (by the harness)", catchup.EvLimit: "memory limit set",
	observe.EvOOMKill: "OOM-killed", observe.EvRestart: "restarted by the runtime", observe.EvDied: "died",
}

// publishErrors: "catchup: 12 timeout, 3 no_responders; settle: 1 timeout".
func publishErrors(p catchup.PublishSummary) string {
	var parts []string
	for _, ph := range catchup.Phases {
		var ks []string
		for _, k := range slices.Sorted(maps.Keys(p.Errors[ph])) {
			if n := p.Errors[ph][k]; n > 0 {
				ks = append(ks, fmt.Sprintf("%s %s", reports.FormatCount(n), k))
			}
		}
		if len(ks) > 0 {
			parts = append(parts, string(ph)+": "+strings.Join(ks, ", "))
		}
	}
	return strings.Join(parts, "; ")
}
