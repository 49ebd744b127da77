package catchup

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// progressAcrossDeaths says what the target held each time it came back
// from a death the runtime restarted it from: the first lag sample after
// the death whose /jsz shows the stream (the restore done). A crash loop
// whose restarts come back holding more each time is gaining ground and
// may finish after more kills; one that comes back holding the same is
// the report's loop, which never does. Empty when the runtime never
// restarted the target.
func progressAcrossDeaths(lag []LagSample, deaths []observe.Deaths, target string) string {
	var times []int64
	for _, d := range deaths {
		if d.Node == target && d.Restarts > 0 {
			times = d.TimesMs
		}
	}
	if len(times) == 0 {
		return ""
	}
	var held []string
	var seqs []uint64
	var leader uint64
	for i, t := range times {
		next := int64(-1)
		if i+1 < len(times) {
			next = times[i+1]
		}
		s, ok := firstBackAfter(lag, t, next)
		if !ok {
			held = append(held, "not seen")
			continue
		}
		held = append(held, fmt.Sprintf("%d", s.TargetLastSeq))
		seqs = append(seqs, s.TargetLastSeq)
		leader = s.LeaderLastSeq
	}
	if len(seqs) == 0 {
		return fmt.Sprintf("%s's readings never showed the stream after a death", target)
	}
	verdict := "each time more, so the catch-up kept what it had stored before each kill and more kills may still finish it"
	for i := 1; i < len(seqs); i++ {
		if seqs[i] <= seqs[i-1] {
			verdict = "not more each time, so between some deaths it kept no progress, as in the report's loop"
		}
	}
	if len(seqs) < 2 || len(seqs) < len(times) {
		verdict = "too few readings to say whether it gained ground"
	}
	return fmt.Sprintf("%s's first reading after each death showed last seq %s (the leader's %d at the last): %s",
		target, strings.Join(held, ", "), leader, verdict)
}

// firstBackAfter is the first sample after t, and before next unless next
// is negative, in which the target holds the stream.
func firstBackAfter(lag []LagSample, t, next int64) (LagSample, bool) {
	for _, s := range lag {
		if s.TMs <= t || !s.TargetHas {
			continue
		}
		if next >= 0 && s.TMs > next {
			break
		}
		return s, true
	}
	return LagSample{}, false
}
