package observe

import (
	"net/http"
	"strings"
)

// Lag is one replica's progress (the target's) as it and the stream
// leader see it, put together from the observer's readings of every node:
// the target's own copy of the stream (its /jsz) at TMs, its latest
// /healthz answer and the latest copy of the node that said it led, each
// at most one reading period older.
type Lag struct {
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

// LagOf puts a Lag together from the target's reading of its copy
// (tgt), the latest reading of the node that said it led (leader, ok
// false when no node did) and the target's latest /healthz answer
// (health, ok false when none came yet).
func LagOf(tgt Sample, leader Sample, led bool, health Sample, healthOK bool) Lag {
	ls := Lag{TMs: tgt.T / 1e6}
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
		ls.TargetHealth = OneLine(health.Err, 120)
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

// LeaderOf is the latest of the readings (by node) that said their node
// led the stream. A node whose stream has no raft node yet (restoring it
// after a restart) names itself leader and lists no replicas (nats-server
// jetstream_cluster.go, (*jetStream).clusterInfo with rg.node nil): seen
// on v2.15.3 for one reading, naming a replica 111,000 messages behind as
// the leader. So a claim that lists replicas beats one that lists none,
// whatever their times; an R1 stream's claims list none and the latest
// wins.
func LeaderOf(latest map[string]Sample) (Sample, bool) {
	var best Sample
	found := false
	for _, s := range latest {
		if !s.Leads() {
			continue
		}
		peers, bestPeers := len(s.Stream.Replicas) > 0, found && len(best.Stream.Replicas) > 0
		if !found || peers && !bestPeers || peers == bestPeers && s.T > best.T {
			best, found = s, true
		}
	}
	return best, found
}

// LagSeries is target's Lag over a stored cell: one at each reading of its
// copy of the stream; nil without a target.
func LagSeries(rec *Record, target string) []Lag {
	if target == "" {
		return nil
	}
	streams, health := map[string]Sample{}, map[string]Sample{}
	var out []Lag
	for _, s := range rec.Samples {
		switch s.Kind {
		case KindHealth:
			health[s.Node] = s
		case KindStream:
			streams[s.Node] = s
			if s.Node == target {
				l, led := LeaderOf(streams)
				h, ok := health[target]
				out = append(out, LagOf(s, l, led, h, ok))
			}
		}
	}
	return out
}
