package watch

import (
	"maps"
	"slices"
)

// State is the cluster as the events so far describe it: what roles
// ("the catching-up replica", "the old leader") are resolved from.
type State struct {
	// Leader is the stream's leader; OldLeader the one it replaced.
	Leader, OldLeader string
	// MetaLeader is the meta group's leader.
	MetaLeader string
	// CatchingUp lists the replicas that started catching up and are not
	// current yet, the latest last.
	CatchingUp []string
	// Lag is each replica's lag behind the leader in raft entries, as the
	// last poll saw it.
	Lag map[string]uint64
}

func (s *State) apply(e Event) {
	switch e.Kind {
	case LeaderChange:
		if e.Node != s.Leader {
			s.OldLeader, s.Leader = s.Leader, e.Node
			if e.From != "" {
				s.OldLeader = e.From
			}
		}
	case MetaLeaderChange:
		s.MetaLeader = e.Node
	case CatchupStart:
		s.CatchingUp = append(slices.DeleteFunc(s.CatchingUp, func(n string) bool { return n == e.Node }), e.Node)
	case CatchupEnd:
		s.CatchingUp = slices.DeleteFunc(s.CatchingUp, func(n string) bool { return n == e.Node })
	}
}

func (s State) clone() State {
	s.CatchingUp = slices.Clone(s.CatchingUp)
	s.Lag = maps.Clone(s.Lag)
	return s
}

// LatestCatchingUp is the replica that most recently started catching up
// and is not current yet, or "".
func (s State) LatestCatchingUp() string {
	if len(s.CatchingUp) == 0 {
		return ""
	}
	return s.CatchingUp[len(s.CatchingUp)-1]
}
