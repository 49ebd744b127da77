package catchup

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// nodePeak is one node's RSS peak in the memory check's window, from its
// series (not the stored peak fields): a stored cell is judged on samples.
type nodePeak struct {
	node    string
	peak    int64 // bytes; 0 when no sample
	at      int64 // ms; -1 when no sample
	samples int
}

// peakIn is m's RSS peak over from <= t < to. A zero reading is none (the
// sampler never stores one: /varz without mem is no answer).
func peakIn(m *NodeMemory, from, to int64) nodePeak {
	p := nodePeak{node: m.Node, at: -1}
	for i, t := range m.RSS.T {
		if v := m.RSS.V[i]; t >= from && t < to && v > 0 {
			p.samples++
			if p.at < 0 || v > p.peak {
				p.peak, p.at = v, t
			}
		}
	}
	return p
}

// memoryFacts are what the memory check and the verdict sentence read.
type memoryFacts struct {
	from, to       int64 // the window: the target's restart to the heal
	target         nodePeak
	others         []nodePeak // every node but the target
	other, leader  *nodePeak  // other: the baseline follower (nil when none stayed one)
	noBaseline     string     // why there is no baseline follower
	bound          int64
	boundWhy       string
	censoring            // what the target's limit did to its peak
	published      int64 // payload bytes acknowledged while catching up (CatchUp.PublishedBytes)
	sinceCurrentMs int64 // the target's peak relative to current (negative: before)
	current        bool
}

// memoryWindow is the span the memory check judges: from the target's
// restart to the heal, which lifts its limit, or to the end without one.
func memoryWindow(r *Result) (from, to int64) {
	from, to = r.CatchUp.RestartAtMs, math.MaxInt64
	if h := r.Phase(PhaseHeal); h.Name != "" {
		to = h.StartMs
	}
	return from, to
}

// catchupMemory gathers the facts from a stored Result, or why nothing can
// be said. bound is 0 without --max-catchup-memory or a baseline follower.
func catchupMemory(r *Result) (memoryFacts, string) {
	var f memoryFacts
	cu := r.CatchUp
	if cu.RestartAtMs == 0 {
		return f, "the target never restarted, so no catch-up was measured"
	}
	f.from, f.to = memoryWindow(r)
	t := r.TargetMemory()
	if t == nil {
		return f, "no memory series of the target " + r.Target
	}
	f.target = peakIn(t, f.from, f.to)
	f.censoring = censorOf(r, t, f.target.peak)
	f.others, f.other, f.leader, f.noBaseline = baseline(r, f.from, f.to)
	if f.other != nil && f.other.samples == 0 {
		f.other, f.noBaseline = nil, fmt.Sprintf("no RSS sample of the other follower %s between the restart and the heal", f.other.node)
	}
	switch lim := int64(r.Options.MaxCatchupMemory); {
	case lim > 0:
		f.bound, f.boundWhy = lim, "--max-catchup-memory"
	case f.other != nil:
		f.bound = max(DefaultJumpFactor*f.other.peak, f.other.peak+DefaultJumpMargin)
		f.boundWhy = fmt.Sprintf("%dx and %s over the other follower's peak", DefaultJumpFactor, bytesize.Bytes(DefaultJumpMargin))
	}
	f.current = cu.CurrentAtMs > 0
	if f.current && f.target.samples > 0 {
		f.sinceCurrentMs = f.target.at - cu.CurrentAtMs
	}
	f.published = cu.PublishedBytes
	if f.published == 0 { // a cell stored before: from the restart until current, by the second
		end := cu.CurrentAtMs
		if end == 0 {
			end = cu.RestartAtMs + int64(cu.Seconds*1000)
		}
		for _, s := range r.Publish.PerSecond {
			if t := s.T * 1000; t >= cu.RestartAtMs && t <= end {
				f.published += s.OK * int64(r.Options.Payload)
			}
		}
	}
	return f, ""
}

// baseline picks the other follower: a node besides the target that no lag
// sample in the window named the stream leader. One that led at all served
// the catch-up or the writes (--nemesis stepdown moves the leader) and is
// no baseline. Of several, the higher peak is taken, so the bound is never
// the lower of two. leader is the node that led in the most samples.
func baseline(r *Result, from, to int64) (rest []nodePeak, other, leader *nodePeak, why string) {
	led, named := map[string]int{}, 0
	for _, s := range r.Lag {
		if s.TMs >= from && s.TMs < to && s.Leader != "" {
			led[s.Leader]++
			named++
		}
	}
	for i := range r.Memory {
		if r.Memory[i].Node != r.Target {
			rest = append(rest, peakIn(&r.Memory[i], from, to))
		}
	}
	var leaders []string // "n1 led in 8"
	for i := range rest {
		p := &rest[i]
		switch {
		case led[p.node] == 0 && (other == nil || p.peak > other.peak):
			other = p
		case led[p.node] > 0:
			leaders = append(leaders, fmt.Sprintf("%s led in %d", p.node, led[p.node]))
			if leader == nil || led[p.node] > led[leader.node] {
				leader = p
			}
		}
	}
	switch {
	case len(rest) == 0:
		return nil, nil, nil, "no memory series of a node other than the target"
	case named == 0:
		return rest, nil, leader, "no lag sample from the restart to the heal named the stream leader, so no node is known to have stayed a follower to be the baseline"
	case other == nil:
		sort.Strings(leaders)
		return rest, nil, leader, fmt.Sprintf("no node stayed a follower from the restart to the heal to be the baseline (%s of the %d lag samples naming the stream leader)",
			strings.Join(leaders, ", "), named)
	}
	return rest, other, leader, ""
}

// censoring is what the target's hard limit did to its sampled peak. An
// OOM kill from its restart on, or a peak held within LimitMarginPercent
// of the limit, hides the demand: it was at least the limit.
type censoring struct {
	limit    int64 // the target's hard limit in the window (0: none)
	oomKills int   // the target's OOM kills from its restart on
	held     bool  // its peak came within LimitMarginPercent of the limit
}

// censorOf decides whether the target's limit held its peak (0: no sample)
// down, for catchup-memory and memory-vs-backlog alike; t may be nil.
func censorOf(r *Result, t *NodeMemory, peak int64) censoring {
	from, to := memoryWindow(r)
	c := censoring{limit: targetLimit(r, t, from, to), oomKills: targetOOMKills(r, from)}
	c.held = c.limit > 0 && peak >= c.limit-c.limit*LimitMarginPercent/100
	return c
}

// censored says whether the peak understates the demand.
func (c censoring) censored() bool { return c.oomKills > 0 || c.held }

// demandAtLeast is what the demand is known to have been at least, given
// the sampled peak: the peak, or the limit when it held the peak down.
func (c censoring) demandAtLeast(peak int64) int64 {
	if c.censored() {
		return max(peak, c.limit)
	}
	return peak
}

// words say how the limit held the peak down, or "" when it did not:
// "was OOM-killed once and held within 5% of its 1GiB limit".
func (c censoring) words() string {
	var how []string
	if c.oomKills > 0 {
		times := fmt.Sprintf("%d times", c.oomKills)
		if c.oomKills == 1 {
			times = "once"
		}
		how = append(how, "was OOM-killed "+times)
	}
	if c.held {
		how = append(how, fmt.Sprintf("held within %d%% of its %s limit", LimitMarginPercent, bytesize.Bytes(c.limit)))
	}
	return strings.Join(how, " and ")
}

// targetLimit is the largest hard limit the target ran under in the window
// (the heal's lift comes at its end), or --memory-limit when no change was
// recorded or t is nil.
func targetLimit(r *Result, t *NodeMemory, from, to int64) int64 {
	if t == nil || len(t.Limit.T) == 0 {
		return int64(r.Options.MemoryLimit)
	}
	lim := t.Limit.At(from)
	for i, at := range t.Limit.T {
		if at >= from && at < to {
			lim = max(lim, t.Limit.V[i])
		}
	}
	return lim
}

// targetOOMKills counts the target's OOM kills from its restart on, after
// the heal too: the sample that saw one may come after the heal began.
func targetOOMKills(r *Result, from int64) int {
	n := 0
	for _, e := range r.Events {
		if e.Node == r.Target && e.Kind == observe.EvOOMKill && e.TMs >= from {
			n++
		}
	}
	return n
}
