// Package watch follows a running cluster and turns what changes into
// events: the stream's or the meta group's leader changing, a replica
// falling behind and catching up again, a raft snapshot, a node's restart,
// and lines the nodes log. Triggered faults (package nemesis) wait for
// them, and roles ("the old leader just deposed") are read from them; the
// run stores every event for the report's timeline.
//
// Cluster state comes from each node's monitoring endpoints, polled every
// Options.Every (/jsz for the stream and the meta group, /raftz for the
// stream's raft log, /varz for the process's start), so it works on any
// runtime, an external cluster included. Log lines come from runtimes that
// can follow logs (cluster.LogFollower); there a leader change is also seen
// the moment the new leader logs it, well before the next poll.
package watch

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Kind is what an event is; the names are what --nemesis triggers take.
type Kind string

// The kinds of event.
const (
	// LeaderChange: the stream has a new leader, Node (From was the one
	// before; empty for the first).
	LeaderChange Kind = "leader-change"
	// MetaLeaderChange: the meta group has a new leader, Node.
	MetaLeaderChange Kind = "meta-leader-change"
	// CatchupStart: replica Node of the stream fell behind by Lag (at least
	// Options.CatchupLag raft entries, as the leader counts them) or its raft
	// group started catching up.
	CatchupStart Kind = "catchup-start"
	// CatchupEnd: replica Node, which had started catching up, is current.
	CatchupEnd Kind = "catchup-end"
	// Snapshot: Node compacted the stream's raft log (its first index moved
	// up), which it does after a snapshot.
	Snapshot Kind = "snapshot"
	// Restart: Node's process started again.
	Restart Kind = "restart"
	// Log: Node logged Line, which matched one of Options.Patterns.
	Log Kind = "log"
	// Due: something the workload promised falls due on the clock at Due
	// (a TTL key's expiry, a schedule's time), as the workload announced it
	// (Announce). The event comes Options.DueLead before that time.
	Due Kind = "due"
)

// Kinds lists the kinds a trigger can name, for help and errors (Log is
// named by its pattern: log:/regexp/).
var Kinds = []Kind{LeaderChange, MetaLeaderChange, CatchupStart, CatchupEnd, Snapshot, Restart, Due}

// Event is one change, as the watcher saw it.
type Event struct {
	Kind Kind `json:"kind"`
	// At is when it happened, in nanoseconds since the history's start like
	// every op: a log line's own time when it has one, else when a poll saw
	// the change.
	At   time.Duration `json:"at_ns"`
	Node string        `json:"node,omitempty"`
	From string        `json:"from,omitempty"` // LeaderChange, MetaLeaderChange: the leader before
	Lag  uint64        `json:"lag,omitempty"`  // CatchupStart: raft entries behind
	// Due: when the announced promise falls due, on the same clock as At.
	Due time.Duration `json:"due_ns,omitempty"`
	// Pattern and Line: Log events, and events read from a log line.
	Pattern string `json:"pattern,omitempty"`
	Line    string `json:"line,omitempty"`
	// Source is "poll", "log", or "workload" for a Due event it announced.
	Source string `json:"source"`
}

// Options configure a Watcher.
type Options struct {
	Cluster cluster.Cluster
	// Stream is the stream whose leader, replicas and raft log are watched;
	// empty watches the meta group and the nodes only.
	Stream string
	// Every is the poll interval. Default 200ms.
	Every time.Duration
	// CatchupLag is how many raft entries behind the leader a replica must
	// be to start catching up. Default 1000: a follower of a busy stream is
	// often a few hundred behind for a moment; a restarted or wiped one is
	// thousands behind.
	CatchupLag uint64
	// Patterns are the log lines to report as Log events.
	Patterns []*regexp.Regexp
	// Since maps a wall-clock time to the history's clock (At).
	Since func(time.Time) time.Duration
	// DueLead is how long before an announced due time its Due event
	// comes: a trigger that injects before the due time (due-1s) needs
	// the event that much ahead.
	DueLead time.Duration
}

const (
	defaultEvery      = 200 * time.Millisecond
	defaultCatchupLag = 1000
)

// Watcher follows one cluster from Start until its context is done.
type Watcher struct {
	opts Options

	mu      sync.Mutex
	events  []Event
	changed chan struct{} // closed and replaced on every new event
	state   State
	notes   map[string]string // what could not be followed, by source
	polls   int
	// baselined: the first poll has set the state.
	baselined bool
	done      chan struct{}
	ctx       context.Context
	dues      map[time.Duration]bool // due times announced, so one instant is one event
}

// Start begins watching; it stops when ctx is done (Wait waits for that).
func Start(ctx context.Context, opts Options) *Watcher {
	if opts.Every <= 0 {
		opts.Every = defaultEvery
	}
	if opts.CatchupLag == 0 {
		opts.CatchupLag = defaultCatchupLag
	}
	if opts.Since == nil {
		t0 := time.Now()
		opts.Since = func(t time.Time) time.Duration { return t.Sub(t0) }
	}
	w := &Watcher{opts: opts, changed: make(chan struct{}), notes: map[string]string{}, done: make(chan struct{}),
		ctx: ctx, dues: map[time.Duration]bool{}}
	var wg sync.WaitGroup
	wg.Go(func() { w.poll(ctx) })
	if f, ok := opts.Cluster.(cluster.LogFollower); ok {
		started := time.Now() // here, not in each goroutine: a loaded machine can start one late
		for i := range opts.Cluster.Nodes() {
			wg.Go(func() { w.follow(ctx, f, i, started) })
		}
	} else {
		w.note("logs", "this runtime cannot follow node logs: log triggers, and leader changes seen in logs, are off")
	}
	go func() { wg.Wait(); close(w.done) }()
	return w
}

// Wait blocks until the watcher has stopped.
func (w *Watcher) Wait() { <-w.done }

// FollowsLogs says whether this cluster's node logs can be followed.
func FollowsLogs(c cluster.Cluster) bool {
	_, ok := c.(cluster.LogFollower)
	return ok
}

// add records events and wakes whoever waits for them. A leader change
// to the leader the state already has is dropped (a log line, or a poll,
// told of it first), and From is the leader the state had.
func (w *Watcher) add(evs ...Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(w.events)
	for _, e := range evs {
		switch {
		case e.Kind == LeaderChange && e.Node == w.state.Leader,
			e.Kind == MetaLeaderChange && e.Node == w.state.MetaLeader:
			continue
		case e.Kind == LeaderChange:
			e.From = w.state.Leader
		case e.Kind == MetaLeaderChange:
			e.From = w.state.MetaLeader
		}
		w.state.apply(e)
		w.events = append(w.events, e)
	}
	if len(w.events) > n {
		close(w.changed)
		w.changed = make(chan struct{})
	}
}

// baseline sets the state from the first poll's findings without making
// them events: a trigger waits for a change, not for what was already so.
// A log line that told of a leader before the first poll stays.
func (w *Watcher) baseline(evs []Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, e := range evs {
		if (e.Kind == LeaderChange && w.state.Leader != "") || (e.Kind == MetaLeaderChange && w.state.MetaLeader != "") {
			continue
		}
		w.state.apply(e)
	}
	w.baselined = true
	close(w.changed)
	w.changed = make(chan struct{})
}

// Ready waits until the first poll has set the state, or ctx is done.
func (w *Watcher) Ready(ctx context.Context) error {
	for {
		w.mu.Lock()
		ok, ch := w.baselined, w.changed
		w.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

func (w *Watcher) note(source, what string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.notes[source] = what
}

// Mark is a position in the event list: Next finds events after it.
func (w *Watcher) Mark() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.events)
}

// Next waits for the first event after mark that match accepts, and
// returns it with the mark after it. It fails when ctx is done first.
func (w *Watcher) Next(ctx context.Context, mark int, match func(Event) bool) (Event, int, error) {
	for {
		w.mu.Lock()
		for ; mark < len(w.events); mark++ {
			if e := w.events[mark]; match(e) {
				w.mu.Unlock()
				return e, mark + 1, nil
			}
		}
		ch := w.changed
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return Event{}, mark, ctx.Err()
		case <-ch:
		}
	}
}

// Events returns every event so far.
func (w *Watcher) Events() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Event(nil), w.events...)
}

// Now is the cluster as last seen, for roles.
func (w *Watcher) Now() State {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state.clone()
}

// Notes says what could not be followed and why, by source.
func (w *Watcher) Notes() map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]string, len(w.notes))
	for k, v := range w.notes {
		out[k] = v
	}
	return out
}

// String describes the event in a few words: "leader-change to n2 (from n1)
// at 12.345s, seen in the log".
func (e Event) String() string {
	s := string(e.Kind)
	switch {
	case e.Kind == LeaderChange || e.Kind == MetaLeaderChange:
		s += " to " + e.Node
		if e.From != "" {
			s += " (from " + e.From + ")"
		}
	case e.Kind == CatchupStart && e.Lag > 0:
		s += fmt.Sprintf(" of %s (%d entries behind)", e.Node, e.Lag)
	case e.Node != "":
		s += " of " + e.Node
	}
	if e.Kind == Log {
		s = fmt.Sprintf("log line of %s matching /%s/", e.Node, e.Pattern)
	}
	if e.Kind == Due {
		return fmt.Sprintf("due time %.3fs (%s), announced by the workload", e.Due.Seconds(), e.Line)
	}
	return fmt.Sprintf("%s at %.3fs, seen by %s", s, e.At.Seconds(), e.Source)
}
