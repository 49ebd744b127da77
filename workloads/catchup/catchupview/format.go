package catchupview

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// How the catch-up page says sizes, times, peaks and outcomes.

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

// publishErrors: "catchup: 12 timeout, 3 no_responders; settle: 1 timeout".
func publishErrors(p catchup.PublishSummary) string {
	var parts []string
	for _, ph := range []catchup.Phase{catchup.PhaseFill, catchup.PhaseDown, catchup.PhaseCatchup, catchup.PhaseSettle, catchup.PhaseHeal, catchup.PhaseVerify} {
		e := p.Errors[ph]
		if len(e) == 0 {
			continue
		}
		kinds := make([]string, 0, len(e))
		for k := range e {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		var ks []string
		for _, k := range kinds {
			if e[k] > 0 {
				ks = append(ks, fmt.Sprintf("%s %s", reports.FormatCount(e[k]), k))
			}
		}
		if len(ks) > 0 {
			parts = append(parts, string(ph)+": "+strings.Join(ks, ", "))
		}
	}
	return strings.Join(parts, "; ")
}
