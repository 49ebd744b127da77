package watch

import (
	"maps"
	"slices"
)

// changes are the events between two samples. Leaders are compared with
// the state the events so far describe (a log line may have told of a new
// leader before this poll), the rest with the previous sample; the first
// sample only tells who leads and who is behind.
func changes(prev *sample, s sample, st State, catchupLag uint64) []Event {
	var out []Event
	ev := func(e Event) {
		e.At, e.Source = s.at, "poll"
		out = append(out, e)
	}
	if l := s.leader(); l != "" && l != st.Leader {
		ev(Event{Kind: LeaderChange, Node: l, From: st.Leader})
	}
	if m := s.metaLeader(); m != "" && m != st.MetaLeader {
		ev(Event{Kind: MetaLeaderChange, Node: m, From: st.MetaLeader})
	}
	catching := map[string]bool{}
	for _, n := range st.CatchingUp {
		catching[n] = true
	}
	for _, n := range slices.Sorted(maps.Keys(s.up)) {
		behind := s.catching[n] || (!s.current[n] && s.lag[n] >= catchupLag && hasKey(s.lag, n))
		switch {
		case behind && !catching[n]:
			ev(Event{Kind: CatchupStart, Node: n, Lag: s.lag[n]})
		case catching[n] && !s.catching[n] && s.current[n]:
			ev(Event{Kind: CatchupEnd, Node: n})
		}
	}
	if prev == nil {
		return out
	}
	for _, n := range slices.Sorted(maps.Keys(s.up)) {
		if was, ok := prev.walFirst[n]; ok && s.walFirst[n] > was {
			ev(Event{Kind: Snapshot, Node: n})
		}
		if was, ok := prev.started[n]; ok && !was.IsZero() && !s.started[n].Equal(was) {
			ev(Event{Kind: Restart, Node: n})
		}
	}
	return out
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}
