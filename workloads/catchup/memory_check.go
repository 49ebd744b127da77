package catchup

import (
	"fmt"
	"math"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// CheckMemory names the catch-up memory check, and the counts it carries.
const (
	CheckMemory           = "catchup-memory"
	CountTargetPeakRSS    = "target_peak_rss"
	CountOtherPeakRSS     = "other_follower_peak_rss"
	CountLeaderPeakRSS    = "leader_peak_rss"
	CountMemoryBound      = "bound"
	CountPublishedCatchUp = "published_while_catching_up"
	CountTargetSamples    = "target_rss_samples" // from the restart to the heal
	CountTargetLimit      = "target_limit"       // its hard limit then (0: none)
	CountTargetOOMKills   = "target_oom_kills"   // from its restart on
	CountTargetCensored   = "target_censored"    // 1 when its limit held its peak down
)

// DefaultJumpFactor and DefaultJumpMargin bound a catching-up replica's
// peak RSS, from its restart to the heal, relative to the other follower's
// in the same window: at most this factor or this margin over it, whichever
// is larger. The other follower replicates the same writes and serves
// nothing, so it is what a replica needs; the leader served the catch-up
// and is no baseline (in the report's rerun it reached 1.21 GiB too, the
// other follower 100 MiB). A replica that queues its backlog in memory at
// the end of the catch-up (nats-server server/raft.go: ResumeApply ->
// applyCommit -> loadEntry) grows with the backlog, far past either.
// --max-catchup-memory sets an absolute bound instead.
const (
	DefaultJumpFactor = 3
	DefaultJumpMargin = 1 << 30
)

// LimitMarginPercent is how close to its hard limit the target's peak RSS
// must come for the limit to have held it down: the kernel reclaims page
// cache first, then kills, so a process whose demand passes the limit is
// held just under it (seed-loop-2gib on v2.15.3: 1,019.5 MiB of a 1
// GiB limit for two minutes, after one OOM kill), while one that fits
// stays well below (v2.11.8 and v2.10.7 under that limit: 588-622 MiB).
const LimitMarginPercent = 5

// memoryCheck judges what the report needs, whatever the kernel did: the
// catching-up replica's memory stays bounded, whether an excess shows as an
// OOM kill, as RSS a GC holds just under GOMEMLIMIT, or on a node without a
// limit. A peak its hard limit held down (censorOf) shows only that the
// demand was at least the limit, which decides only when the limit is
// above the bound.
func memoryCheck(r *Result) checker.Result {
	f, why := catchupMemory(r)
	if why != "" {
		return result(CheckMemory, checker.Unknown, why, nil)
	}
	counts := map[string]int{CountTargetPeakRSS: int(f.target.peak), CountMemoryBound: int(f.bound),
		CountPublishedCatchUp: int(f.published), CountTargetSamples: f.target.samples,
		CountTargetLimit: int(f.limit), CountTargetOOMKills: f.oomKills}
	if f.other != nil {
		counts[CountOtherPeakRSS] = int(f.other.peak)
	}
	if f.leader != nil {
		counts[CountLeaderPeakRSS] = int(f.leader.peak)
	}
	words := jumpWords(r, f)
	bound := fmt.Sprintf("the bound of %s (%s)", bytesize.Bytes(f.bound), f.boundWhy)
	censored := censoredWords(r.Target, f)
	if censored != "" {
		counts[CountTargetCensored] = 1
	}
	switch {
	case f.bound == 0:
		return result(CheckMemory, checker.Unknown, words+" No bound without a baseline follower (--max-catchup-memory gives one).", counts)
	case f.target.samples > 0 && f.target.peak > f.bound:
		return result(CheckMemory, checker.Invalid, words+" Above "+bound+".", counts)
	case censored != "" && f.limit > f.bound:
		return result(CheckMemory, checker.Invalid, words+censored+fmt.Sprintf(": its demand was at least the %s limit, above %s.", bytesize.Bytes(f.limit), bound), counts)
	case f.target.samples == 0:
		return result(CheckMemory, checker.Unknown, words+" Its memory while catching up is not known, so it cannot be held to "+bound+".", counts)
	case censored != "" && f.limit > 0:
		return result(CheckMemory, checker.Unknown, words+censored+fmt.Sprintf(": its demand was at least the %s limit, which is not above %s, so whether it would pass the bound cannot be seen under this limit (run with a limit above the bound, or none).", bytesize.Bytes(f.limit), bound), counts)
	case censored != "":
		return result(CheckMemory, checker.Unknown, words+censored+" with no memory limit recorded: its demand is not known.", counts)
	}
	return result(CheckMemory, checker.Valid, words+" Within "+bound+".", counts)
}

// censoredWords: " n3 was OOM-killed once and held within 5% of its 1GiB
// limit", or "" when the limit did not hold its peak down.
func censoredWords(target string, f memoryFacts) string {
	if !f.censored() {
		return ""
	}
	return fmt.Sprintf(" %s %s", target, f.words())
}

// jumpWords says what was seen: "n2 peaked at 2.68 GiB 0.6s after it was
// current; the other follower n3 peaked at 100 MiB, the leader n1 at 469
// MiB; 1.2 GiB were published while it caught up."
func jumpWords(r *Result, f memoryFacts) string {
	var s string
	if f.target.samples == 0 {
		s = fmt.Sprintf("%s sent no RSS sample between its restart at %s and the heal", r.Target, observe.Secs(f.from))
		if f.to < math.MaxInt64 {
			s += " at " + observe.Secs(f.to)
		}
	} else {
		when := fmt.Sprintf("at %s", observe.Secs(f.target.at))
		switch {
		case f.current && f.sinceCurrentMs >= 0:
			when = fmt.Sprintf("%s after it was current", observe.Secs(f.sinceCurrentMs))
		case f.current:
			when = fmt.Sprintf("%s before it was current", observe.Secs(-f.sinceCurrentMs))
		}
		ratio := 0.0
		if b := r.Stream.RestartBytes; b > 0 {
			ratio = float64(f.target.peak) / float64(b)
		}
		s = fmt.Sprintf("%s peaked at %s RSS %s (%.2fx the %s it caught up)", r.Target, bytesize.Bytes(f.target.peak), when, ratio, bytesize.Bytes(r.Stream.RestartBytes))
	}
	if f.other != nil {
		s += fmt.Sprintf("; the other follower %s peaked at %s", f.other.node, bytesize.Bytes(f.other.peak))
		if f.leader != nil {
			s += fmt.Sprintf(", the leader %s at %s", f.leader.node, bytesize.Bytes(f.leader.peak))
		}
	} else {
		s += "; " + f.noBaseline
		for i, p := range f.others {
			sep, verb := ", ", ""
			if i == 0 {
				sep, verb = "; ", "peaked "
			}
			s += fmt.Sprintf("%s%s %sat %s", sep, p.node, verb, bytesize.Bytes(p.peak))
		}
	}
	return s + fmt.Sprintf("; %s were published while it caught up.", bytesize.Bytes(f.published))
}
