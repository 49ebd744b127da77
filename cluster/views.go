package cluster

import (
	"context"
	"net/url"
)

// StreamView is one server's own view of a stream, from its /jsz: who leads
// it and how far behind each replica is, as that server knows them (only
// the leader knows the replicas' lag).
type StreamView struct {
	RaftGroup string     `json:"raft_group"`
	Leader    string     `json:"leader"`
	Replicas  []PeerView `json:"replicas"` // the peers besides the leader
	Messages  uint64     `json:"messages"`
	FirstSeq  uint64     `json:"first_seq"`
	LastSeq   uint64     `json:"last_seq"`
}

// PeerView is a stream or meta peer as a server sees it.
type PeerView struct {
	Name    string `json:"name"`
	Current bool   `json:"current"`
	Offline bool   `json:"offline"`
	Lag     uint64 `json:"lag"`
}

// GetStreamView reads node n's view of stream; ok is false when n holds no
// copy of it.
func GetStreamView(ctx context.Context, n Node, stream string) (v StreamView, ok bool, err error) {
	var j struct {
		Accounts []struct {
			Streams []struct {
				Name      string `json:"name"`
				RaftGroup string `json:"stream_raft_group"`
				Cluster   *struct {
					Leader   string     `json:"leader"`
					Replicas []PeerView `json:"replicas"`
				} `json:"cluster"`
				State struct {
					Messages uint64 `json:"messages"`
					FirstSeq uint64 `json:"first_seq"`
					LastSeq  uint64 `json:"last_seq"`
				} `json:"state"`
			} `json:"stream_detail"`
		} `json:"account_details"`
	}
	if err := getJSON(ctx, n.MonitorURL+"/jsz?accounts=true&streams=true&raft=true", &j); err != nil {
		return v, false, err
	}
	for _, a := range j.Accounts {
		for _, s := range a.Streams {
			if s.Name != stream {
				continue
			}
			v = StreamView{RaftGroup: s.RaftGroup, Messages: s.State.Messages, FirstSeq: s.State.FirstSeq, LastSeq: s.State.LastSeq}
			if s.Cluster != nil {
				v.Leader, v.Replicas = s.Cluster.Leader, s.Cluster.Replicas
			}
			return v, true, nil
		}
	}
	return v, false, nil
}

// RaftView is one server's view of a raft group, from its /raftz (served
// from nats-server 2.10.2x on; NotServed(err) on older releases).
type RaftView struct {
	State      string `json:"state"`
	Leader     string `json:"leader"`
	Term       uint64 `json:"term"`
	Committed  uint64 `json:"committed"`
	Applied    uint64 `json:"applied"`
	CatchingUp bool   `json:"catching_up"`
	// WAL is the group's log on this server: its first index moves up when
	// the log is compacted after a snapshot.
	WAL struct {
		FirstSeq uint64 `json:"first_seq"`
		LastSeq  uint64 `json:"last_seq"`
	} `json:"wal"`
}

// GetRaftView reads node n's view of raft group; ok is false when n is not
// in the group.
func GetRaftView(ctx context.Context, n Node, group string) (RaftView, bool, error) {
	var accounts map[string]map[string]RaftView
	if err := getJSON(ctx, n.MonitorURL+"/raftz?group="+url.QueryEscape(group), &accounts); err != nil {
		return RaftView{}, false, err
	}
	for _, groups := range accounts {
		if v, ok := groups[group]; ok {
			return v, true, nil
		}
	}
	return RaftView{}, false, nil
}
