package catchup

import (
	"net/http"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// LagSample is the target's progress as it and the stream leader see it,
// put together from the pipeline's readings of every node (package
// observe): the target's own copy of the stream (its /jsz) at TMs, its
// latest /healthz answer and the latest copy of the node that said it led,
// each at most one reading period older. Cells stored before the pipeline
// observed the nodes read the leader's view from stream info instead.
type LagSample struct {
	TMs int64 `json:"t_ms"`
	// The target's own copy, from its /jsz.
	TargetHas     bool   `json:"target_has_stream"`
	TargetMsgs    uint64 `json:"target_msgs"`
	TargetBytes   uint64 `json:"target_bytes"`
	TargetLastSeq uint64 `json:"target_last_seq"`
	TargetHealthy bool   `json:"target_healthy"`
	TargetHealth  string `json:"target_health,omitempty"` // why not healthy
	// The leader's view, from its own /jsz.
	Leader         string `json:"leader,omitempty"`
	LeaderMsgs     uint64 `json:"leader_msgs"`
	LeaderBytes    uint64 `json:"leader_bytes"`
	LeaderLastSeq  uint64 `json:"leader_last_seq"`
	ReplicaLag     uint64 `json:"replica_lag"` // raft entries, as the leader reports
	ReplicaCurrent bool   `json:"replica_current"`
	ReplicaOffline bool   `json:"replica_offline"`
	// Behind is leader last seq minus target last seq (0 when ahead).
	Behind uint64 `json:"behind"`
	Err    string `json:"error,omitempty"`
}

// lagOf puts a LagSample together from the target's reading of its copy
// (tgt), the latest reading of the node that said it led (leader, ok
// false when no node did) and the target's latest /healthz answer
// (health, ok false when none came yet).
func lagOf(tgt observe.Sample, leader observe.Sample, led bool, health observe.Sample, healthOK bool) LagSample {
	ls := LagSample{TMs: tgt.T / 1e6}
	var errs []string
	if s := tgt.Stream; s != nil {
		ls.TargetHas, ls.TargetMsgs, ls.TargetBytes, ls.TargetLastSeq = s.Has, s.Msgs, s.Bytes, s.LastSeq
	} else {
		errs = append(errs, "target /jsz: "+tgt.Err)
	}
	switch {
	case !healthOK:
		ls.TargetHealth = "no /healthz answer yet"
	case health.Status == http.StatusOK:
		ls.TargetHealthy = true
	default:
		ls.TargetHealth = observe.OneLine(health.Err, 120)
	}
	if led {
		s := leader.Stream
		ls.Leader, ls.LeaderMsgs, ls.LeaderBytes, ls.LeaderLastSeq = leader.Node, s.Msgs, s.Bytes, s.LastSeq
		for _, p := range s.Replicas {
			if p.Name == tgt.Node {
				ls.ReplicaLag, ls.ReplicaCurrent, ls.ReplicaOffline = p.Lag, p.Current, p.Offline
			}
		}
	} else {
		errs = append(errs, "no node said it led the stream")
	}
	if ls.LeaderLastSeq > ls.TargetLastSeq {
		ls.Behind = ls.LeaderLastSeq - ls.TargetLastSeq
	}
	ls.Err = strings.Join(errs, "; ")
	return ls
}

// leaderOf is the latest of the readings that said their node led.
func leaderOf(latest map[string]observe.Sample) (observe.Sample, bool) {
	var best observe.Sample
	found := false
	for _, s := range latest {
		if s.Leads() && (!found || s.T > best.T) {
			best, found = s, true
		}
	}
	return best, found
}

// lagSamples are the target's LagSamples over a stored cell: one at each
// reading of its copy of the stream.
func lagSamples(rec *observe.Record, target string) []LagSample {
	if target == "" {
		return nil
	}
	streams, health := map[string]observe.Sample{}, map[string]observe.Sample{}
	var out []LagSample
	for _, s := range rec.Samples {
		switch s.Kind {
		case observe.KindHealth:
			health[s.Node] = s
		case observe.KindStream:
			streams[s.Node] = s
			if s.Node == target {
				l, led := leaderOf(streams)
				h, ok := health[target]
				out = append(out, lagOf(s, l, led, h, ok))
			}
		}
	}
	return out
}

// lagNow is the target's LagSample from the observer's latest readings;
// false before the target's copy was read.
func (r *cell) lagNow() (LagSample, bool) {
	tgt, ok := r.obs.Latest(observe.KindStream, r.target)
	if !ok {
		return LagSample{}, false
	}
	h, hok := r.obs.Latest(observe.KindHealth, r.target)
	l, led := r.leaderView()
	return lagOf(tgt, l, led, h, hok), true
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
	return leaderOf(latest)
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
