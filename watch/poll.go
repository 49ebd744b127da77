package watch

import (
	"context"
	"fmt"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// sample is one poll of every node.
type sample struct {
	at      time.Duration
	up      map[string]bool      // answered /varz
	started map[string]time.Time // /varz start
	// claims: who each node says leads the stream, and the meta group.
	claims, meta map[string]string
	// lag and current: the replicas as the stream's leader sees them.
	lag     map[string]uint64
	current map[string]bool
	// catching and walFirst: each node's view of the stream's raft group.
	catching map[string]bool
	walFirst map[string]uint64
	term     map[string]uint64
}

func newSample(at time.Duration) sample {
	return sample{at: at, up: map[string]bool{}, started: map[string]time.Time{}, claims: map[string]string{},
		meta: map[string]string{}, lag: map[string]uint64{}, current: map[string]bool{}, catching: map[string]bool{},
		walFirst: map[string]uint64{}, term: map[string]uint64{}}
}

// poll samples the cluster every opts.Every and turns the changes into
// events, until ctx is done.
func (w *Watcher) poll(ctx context.Context) {
	var prev *sample
	t := time.NewTicker(w.opts.Every)
	defer t.Stop()
	for {
		s := w.sampleOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		w.mu.Lock()
		st := w.state.clone()
		w.polls++
		w.state.Lag = s.lag
		w.mu.Unlock()
		if evs := changes(prev, s, st, w.opts.CatchupLag); prev == nil {
			w.baseline(evs) // who leads, who is behind, at the start: no change
		} else {
			w.add(evs...)
		}
		s = carry(prev, s)
		prev = &s
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sampleOnce reads every node's monitoring endpoints once. A node that
// does not answer is left out of the sample (it is down, paused or cut off).
func (w *Watcher) sampleOnce(ctx context.Context) sample {
	s := newSample(w.opts.Since(time.Now()))
	for _, n := range w.opts.Cluster.Nodes() {
		rctx, cancel := context.WithTimeout(ctx, w.opts.Every*5)
		w.sampleNode(rctx, n, &s)
		cancel()
	}
	return s
}

func (w *Watcher) sampleNode(ctx context.Context, n cluster.Node, s *sample) {
	var m cluster.Monitor
	v, err := m.Varz(ctx, n)
	if err != nil {
		return
	}
	s.up[n.Name], s.started[n.Name] = true, v.Start
	if j, err := m.Jsz(ctx, n); err == nil && j.Meta != nil && j.Meta.Leader != "" {
		s.meta[n.Name] = j.Meta.Leader
	}
	if w.opts.Stream == "" {
		return
	}
	sd, ok, err := m.LocalStream(ctx, n, w.opts.Stream)
	if err != nil || !ok {
		return
	}
	s.claims[n.Name] = sd.Leader()
	if sd.Leader() == n.Name { // only the leader knows how far behind the replicas are
		for _, p := range sd.Cluster.Replicas {
			s.lag[p.Name], s.current[p.Name] = p.Lag, p.Current
		}
	}
	if sd.RaftGroup == "" {
		return
	}
	rg, ok, err := m.Raftz(ctx, n, sd.Account, sd.RaftGroup)
	switch {
	case cluster.NotServed(err):
		w.note("raftz", fmt.Sprintf("%s has no /raftz (an older release): snapshot events are off, catch-ups are seen by lag alone", n.Name))
	case err == nil && ok:
		s.catching[n.Name], s.walFirst[n.Name], s.term[n.Name] = rg.CatchingUp, rg.WAL.FirstSeq, rg.Term
	}
}

// carry fills in, for the nodes that did not answer s, what prev last knew
// of their process start and raft log, so a node that was down for a poll
// or more is compared with itself before it went down.
func carry(prev *sample, s sample) sample {
	if prev == nil {
		return s
	}
	for n, t := range prev.started {
		if !s.up[n] {
			s.started[n] = t
		}
	}
	for n, f := range prev.walFirst {
		if _, ok := s.walFirst[n]; !ok && !s.up[n] {
			s.walFirst[n] = f
		}
	}
	return s
}

// leader is the stream's leader in a sample: the node that claims to lead
// it (the one of the higher raft term when two do, as in the window after
// a partition heals), else what most nodes name.
func (s sample) leader() string {
	best := ""
	for node, claim := range s.claims {
		if claim == node && (best == "" || s.term[node] > s.term[best] || (s.term[node] == s.term[best] && node < best)) {
			best = node
		}
	}
	if best != "" {
		return best
	}
	return mostNamed(s.claims)
}

// metaLeader is the meta leader most nodes name.
func (s sample) metaLeader() string { return mostNamed(s.meta) }

func mostNamed(views map[string]string) string {
	count := map[string]int{}
	for _, v := range views {
		if v != "" {
			count[v]++
		}
	}
	best := ""
	for v, n := range count {
		if n > count[best] || (n == count[best] && v < best) {
			best = v
		}
	}
	return best
}
