package watch

import (
	"reflect"
	"testing"
	"time"
)

// node is one node's part of a test sample.
type node struct {
	up       bool
	claim    string // the stream leader it names
	meta     string
	lag      int64 // -1: the leader does not list it
	current  bool
	catching bool
	wal      uint64
	term     uint64
	start    int // its process start, in seconds
}

func sampleOf(nodes map[string]node) sample {
	s := newSample(time.Second)
	for name, n := range nodes {
		if !n.up {
			continue
		}
		s.up[name] = true
		s.started[name] = time.Unix(int64(n.start), 0)
		if n.claim != "" {
			s.claims[name] = n.claim
		}
		if n.meta != "" {
			s.meta[name] = n.meta
		}
		if n.lag >= 0 {
			s.lag[name], s.current[name] = uint64(n.lag), n.current
		}
		s.catching[name], s.walFirst[name], s.term[name] = n.catching, n.wal, n.term
	}
	return s
}

func TestChanges(t *testing.T) {
	steady := map[string]node{
		"n1": {up: true, claim: "n1", meta: "n2", lag: -1, term: 3, wal: 10, start: 1},
		"n2": {up: true, claim: "n1", meta: "n2", lag: 0, current: true, term: 3, wal: 10, start: 1},
		"n3": {up: true, claim: "n1", meta: "n2", lag: 0, current: true, term: 3, wal: 10, start: 1},
	}
	known := State{Leader: "n1", MetaLeader: "n2"}
	with := func(name string, edit func(*node)) map[string]node {
		out := map[string]node{}
		for k, v := range steady {
			out[k] = v
		}
		n := out[name]
		edit(&n)
		out[name] = n
		return out
	}
	cases := []struct {
		name  string
		prev  map[string]node // nil: the first sample
		next  map[string]node
		state State
		want  []Event
	}{
		{"first sample: who leads", nil, steady, State{}, []Event{
			{Kind: LeaderChange, Node: "n1"}, {Kind: MetaLeaderChange, Node: "n2"}}},
		{"nothing changed", steady, steady, known, nil},
		{"a log line told of the leader first", steady, steady, State{Leader: "n1", MetaLeader: "n2"}, nil},
		{"the leader moved", steady, func() map[string]node {
			m := map[string]node{}
			for k, v := range steady {
				v.claim = "n2"
				m[k] = v
			}
			return m
		}(), known, []Event{{Kind: LeaderChange, Node: "n2", From: "n1"}}},
		{"two claim: the higher term leads", steady, with("n2", func(n *node) { n.claim, n.term = "n2", 4 }), known,
			[]Event{{Kind: LeaderChange, Node: "n2", From: "n1"}}},
		{"a running replica falls behind", steady, with("n3", func(n *node) { n.lag, n.current = 1500, false }), known,
			[]Event{{Kind: CatchupStart, Node: "n3", Lag: 1500}}},
		{"behind by less than the threshold", steady, with("n3", func(n *node) { n.lag, n.current = 999, false }), known, nil},
		{"a replica that is down is not catching up", steady, with("n3", func(n *node) { n.up = false }),
			State{Leader: "n1", MetaLeader: "n2"}, nil},
		{"raft says it catches up", steady, with("n3", func(n *node) { n.catching = true }), known,
			[]Event{{Kind: CatchupStart, Node: "n3"}}},
		{"current again", steady, steady, State{Leader: "n1", MetaLeader: "n2", CatchingUp: []string{"n3"}},
			[]Event{{Kind: CatchupEnd, Node: "n3"}}},
		{"still catching up", steady, with("n3", func(n *node) { n.lag, n.current = 50, false }),
			State{Leader: "n1", MetaLeader: "n2", CatchingUp: []string{"n3"}}, nil},
		{"a snapshot compacts the log", steady, with("n2", func(n *node) { n.wal = 42 }), known,
			[]Event{{Kind: Snapshot, Node: "n2"}}},
		{"a process started again", steady, with("n2", func(n *node) { n.start = 9 }), known,
			[]Event{{Kind: Restart, Node: "n2"}}},
		{"the meta leader moved", steady, with("n1", func(n *node) { n.meta = "n3" }), known, nil}, // one of three
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var prev *sample
			if c.prev != nil {
				p := sampleOf(c.prev)
				prev = &p
			}
			got := changes(prev, sampleOf(c.next), c.state, defaultCatchupLag)
			for i := range got {
				got[i].At, got[i].Source = 0, ""
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestCarry: a node down for a poll is compared with itself before it went
// down, so its restart is seen when it answers again.
func TestCarry(t *testing.T) {
	up := map[string]node{"n1": {up: true, lag: -1, start: 1, wal: 5}}
	down := map[string]node{"n1": {up: false}}
	back := map[string]node{"n1": {up: true, lag: -1, start: 7, wal: 5}}
	a := sampleOf(up)
	b := carry(&a, sampleOf(down))
	got := changes(&b, sampleOf(back), State{}, defaultCatchupLag)
	if len(got) != 1 || got[0].Kind != Restart || got[0].Node != "n1" {
		t.Fatalf("%+v, want one restart of n1", got)
	}
}
