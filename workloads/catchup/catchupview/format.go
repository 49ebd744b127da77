package catchupview

import (
	"cmp"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// How the catch-up page says sizes, times, peaks and outcomes.

// times writes "once", "2 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return reports.FormatCount(n) + " times"
}

// fmtSecs writes a duration in seconds: 4.9 s, 42.3 s, 2 m 5 s.
func fmtSecs(s float64) string {
	if s < 99.95 {
		return fmt.Sprintf("%.1f s", s)
	}
	return fmtDur(time.Duration(math.Round(s)) * time.Second)
}

// fmtAt writes a moment, ms since the cell began, as seconds on the
// charts' axis: 12.2 s, 245.0 s.
func fmtAt(ms int64) string {
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

// fmtDur writes a bound as people say it: 10 m, 90 s, 2 m 30 s.
func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "0 s"
	case d < 100*time.Second && d%time.Minute != 0:
		return fmt.Sprintf("%g s", d.Seconds())
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d m", d/time.Minute)
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%d m %d s", d/time.Minute, (d%time.Minute)/time.Second)
}

// fmtSize writes a size that was asked for (a flag) as it was most likely
// written, with a space: 1.5 GiB, 6 GB, 40 MB.
func fmtSize(b int64) string {
	s := bytesize.Bytes(b).String()
	if i := strings.IndexFunc(s, unicode.IsLetter); i > 0 {
		return s[:i] + " " + s[i:]
	}
	return s
}

// fmtRatio writes a ratio to the stream: 0.94x.
func fmtRatio(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.0fx", r)
	}
	return fmt.Sprintf("%.2fx", r)
}

func peakShort(v int64, ratio float64) string {
	if v <= 0 {
		return "not measured"
	}
	s := reports.FormatBytes(float64(v))
	if ratio > 0 {
		s += " (" + fmtRatio(ratio) + ")"
	}
	return s
}

// secsList writes times in ms as "12.3 s, 15.0 s", at most six of them.
func secsList(ms []int64) string {
	var parts []string
	for i, t := range ms {
		if i == 6 {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(ms)-i))
			break
		}
		parts = append(parts, fmtAt(t))
	}
	if len(parts) == 0 {
		return "?"
	}
	return strings.Join(parts, ", ")
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
