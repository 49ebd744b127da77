package catchup

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// CheckMemory names the catch-up memory check, and the counts it carries.
const (
	CheckMemory           = "catchup-memory"
	CountTargetPeakRSS    = "target_peak_rss"
	CountOtherPeakRSS     = "other_follower_peak_rss"
	CountLeaderPeakRSS    = "leader_peak_rss"
	CountMemoryBound      = "bound"
	CountPublishedCatchUp = "published_while_catching_up"
)

// DefaultJumpFactor and DefaultJumpMargin are the relative bound on a
// catching-up replica's memory: its peak RSS from the restart to the end
// of the settle may exceed the other follower's peak in the same window by
// at most this factor, or this margin, whichever is larger. The other
// follower replicates the same writes and serves nothing, so it is what a
// replica needs; the leader served the catch-up and is no baseline (in the
// report's rerun it reached 1.21 GiB too, the other follower 100 MiB). A
// replica that queues its backlog in memory at the end of the catch-up
// (ResumeApply -> applyCommit -> loadEntry, facts.md "Catch-up memory")
// grows with the backlog, far past either. --max-catchup-memory replaces
// the relative bound with an absolute one.
const (
	DefaultJumpFactor = 3
	DefaultJumpMargin = 1 << 30
)

// memoryFacts are what the memory check and the verdict sentence read.
type memoryFacts struct {
	target, other, leader *NodeMemory
	bound                 int64
	boundWhy              string
	published             int64 // payload bytes acknowledged from the restart until current
	sinceCurrentMs        int64 // the target's peak relative to current (negative: before)
	current               bool
}

// catchupMemory gathers the facts from a stored Result.
func catchupMemory(r *Result) (memoryFacts, string) {
	var f memoryFacts
	cu := r.CatchUp
	if cu.RestartAtMs == 0 {
		return f, "the target never restarted, so no catch-up was measured"
	}
	for i := range r.Memory {
		if r.Memory[i].Node == r.Target {
			f.target = &r.Memory[i]
		}
	}
	if f.target == nil || len(f.target.RSS.T) == 0 {
		return f, "no RSS samples of the target " + r.Target
	}
	f.other, f.leader = otherFollower(r)
	if f.other == nil || f.other.PeakRSS <= 0 {
		return f, "no RSS samples of the other follower"
	}
	if lim := int64(r.Options.MaxCatchupMemory); lim > 0 {
		f.bound, f.boundWhy = lim, "--max-catchup-memory"
	} else {
		f.bound = max(DefaultJumpFactor*f.other.PeakRSS, f.other.PeakRSS+DefaultJumpMargin)
		f.boundWhy = fmt.Sprintf("%dx and %s over the other follower's peak", DefaultJumpFactor, Bytes(DefaultJumpMargin))
	}
	f.current = cu.CurrentAtMs > 0
	if f.current {
		f.sinceCurrentMs = f.target.PeakRSSAt - cu.CurrentAtMs
	}
	end := cu.CurrentAtMs
	if end == 0 {
		end = cu.RestartAtMs + int64(cu.Seconds*1000)
	}
	for _, s := range r.Publish.PerSecond {
		if t := s.T * 1000; t >= cu.RestartAtMs && t <= end {
			f.published += s.OK * int64(r.Options.Payload)
		}
	}
	return f, ""
}

// otherFollower is the node other than the target that led the stream in
// the fewest lag samples from the restart on (the leader is the other);
// with no leader seen, the one with the lower peak.
func otherFollower(r *Result) (other, leader *NodeMemory) {
	var rest []*NodeMemory
	for i := range r.Memory {
		if r.Memory[i].Node != r.Target {
			rest = append(rest, &r.Memory[i])
		}
	}
	if len(rest) == 0 {
		return nil, nil
	}
	led := map[string]int{}
	for _, s := range r.Lag {
		if s.TMs >= r.CatchUp.RestartAtMs && s.Leader != "" {
			led[s.Leader]++
		}
	}
	other = rest[0]
	for _, m := range rest[1:] {
		if led[m.Node] < led[other.Node] || (led[m.Node] == led[other.Node] && m.PeakRSS < other.PeakRSS) {
			other = m
		}
	}
	for _, m := range rest {
		if m != other && (leader == nil || led[m.Node] > led[leader.Node]) {
			leader = m
		}
	}
	return other, leader
}

// memoryCheck judges the property the report needs, whatever the kernel
// did: the catching-up replica's memory stays bounded. An OOM kill is one
// way to see it broken; a GC that holds RSS just under GOMEMLIMIT, or a
// node without a limit, are others, and this check sees them too.
func memoryCheck(r *Result) checker.Result {
	f, why := catchupMemory(r)
	if why != "" {
		return result(CheckMemory, checker.Unknown, why, nil)
	}
	counts := map[string]int{CountTargetPeakRSS: int(f.target.PeakRSS), CountOtherPeakRSS: int(f.other.PeakRSS),
		CountMemoryBound: int(f.bound), CountPublishedCatchUp: int(f.published)}
	if f.leader != nil {
		counts[CountLeaderPeakRSS] = int(f.leader.PeakRSS)
	}
	words := jumpWords(r, f)
	if f.target.PeakRSS > f.bound {
		return result(CheckMemory, checker.Invalid, words+fmt.Sprintf(" Above the bound of %s (%s).", Bytes(f.bound), f.boundWhy), counts)
	}
	return result(CheckMemory, checker.Valid, words+fmt.Sprintf(" Within the bound of %s (%s).", Bytes(f.bound), f.boundWhy), counts)
}

// jumpWords says what was seen: "n2 peaked at 2.68 GiB 0.6s after it was
// current; the other follower n3 peaked at 100 MiB, the leader n1 at 469
// MiB; 1.2 GiB were published while it caught up."
func jumpWords(r *Result, f memoryFacts) string {
	when := fmt.Sprintf("at %s", ms(f.target.PeakRSSAt))
	switch {
	case f.current && f.sinceCurrentMs >= 0:
		when = fmt.Sprintf("%s after it was current", ms(f.sinceCurrentMs))
	case f.current:
		when = fmt.Sprintf("%s before it was current", ms(-f.sinceCurrentMs))
	}
	s := fmt.Sprintf("%s peaked at %s RSS %s (%.2fx the %s it caught up); the other follower %s peaked at %s",
		r.Target, Bytes(f.target.PeakRSS), when, f.target.PeakRSSRatio, Bytes(r.Stream.RestartBytes), f.other.Node, Bytes(f.other.PeakRSS))
	if f.leader != nil {
		s += fmt.Sprintf(", the leader %s at %s", f.leader.Node, Bytes(f.leader.PeakRSS))
	}
	return s + fmt.Sprintf("; %s were published while it caught up.", Bytes(f.published))
}
