package catchup

import "github.com/jetstream-chaos/jetstream-chaos/observe"

// LagSample is the target's progress as it and the stream leader see it
// (observe.Lag); catchup.json stores a series of them.
type LagSample = observe.Lag

// lagNow is the target's LagSample from the observer's latest readings;
// false before the target's copy was read.
func (r *cell) lagNow() (LagSample, bool) {
	tgt, ok := r.obs.Latest(observe.KindStream, r.target)
	if !ok {
		return LagSample{}, false
	}
	h, hok := r.obs.Latest(observe.KindHealth, r.target)
	l, led := r.leaderView()
	return observe.LagOf(tgt, l, led, h, hok), true
}

// leaderView is the latest reading of the node that said it led the
// stream, and false when none did.
func (r *cell) leaderView() (observe.Sample, bool) {
	latest := map[string]observe.Sample{}
	for i := range r.c.Nodes() {
		if s, ok := r.obs.Latest(observe.KindStream, i); ok {
			latest[s.Node] = s
		}
	}
	return observe.LeaderOf(latest)
}

// lagBefore keeps cur among the recent lag samples and returns the latest
// taken at least half a second before it (the zero sample when none): with
// writes going on, the target is caught up on data when it holds what the
// leader held then, as equality with the same instant is a race.
func (r *cell) lagBefore(cur LagSample) LagSample {
	var prev LagSample
	keep := r.recentLag[:0]
	for _, l := range r.recentLag {
		if l.TMs <= cur.TMs-500 {
			prev = l
		}
		if l.TMs > cur.TMs-2000 {
			keep = append(keep, l)
		}
	}
	r.recentLag = append(keep, cur)
	return prev
}
