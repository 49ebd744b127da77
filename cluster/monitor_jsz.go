package cluster

import (
	"context"
	"net/url"
)

// /jsz and /raftz: one server's own view of the JetStream meta group, of
// its copy of each stream and of a stream's raft group, each decoded here
// once in the parts the toolkit reads.

// Jsz is the part of /jsz the toolkit reads.
type Jsz struct {
	Disabled bool         `json:"disabled"`     // JetStream is off on this server
	Meta     *MetaCluster `json:"meta_cluster"` // nil outside a cluster
	// Accounts hold this server's copies of the streams; only JszStreams
	// asks for them.
	Accounts []AccountDetail `json:"account_details"`
}

// MetaCluster is the JetStream meta group as one server sees it.
type MetaCluster struct {
	Leader string `json:"leader"`
	Size   int    `json:"cluster_size"`
	// Replicas are the group's other members as this server knows them;
	// only the leader's view of them is current.
	Replicas []Peer `json:"replicas"`
}

// Peer is a member of a meta or stream group as one server sees it.
type Peer struct {
	Name    string `json:"name"`
	Current bool   `json:"current"`
	Offline bool   `json:"offline"`
	Lag     uint64 `json:"lag"` // raft entries behind the leader
}

// AccountDetail is one account's part of /jsz?accounts=true.
type AccountDetail struct {
	Name    string         `json:"name"` // its name tag where it has one
	ID      string         `json:"id"`   // the account's own name
	Streams []StreamDetail `json:"stream_detail"`
}

// StreamDetail is one server's own copy of a stream.
type StreamDetail struct {
	Name      string         `json:"name"`
	RaftGroup string         `json:"stream_raft_group"`
	Cluster   *StreamCluster `json:"cluster"` // nil on a server outside a cluster
	Config    *StreamConfig  `json:"config"`
	State     StreamState    `json:"state"`
	// Account is the id of the account that holds the stream; Jsz.Stream
	// sets it.
	Account string `json:"-"`
}

// StreamCluster is who leads a stream and how far behind each replica is,
// as one server knows them: only the leader knows the replicas' lag.
type StreamCluster struct {
	Leader   string `json:"leader"`
	Replicas []Peer `json:"replicas"` // the peers besides the leader
}

// StreamConfig is the part of a stream's configuration the toolkit reads.
type StreamConfig struct {
	Replicas int `json:"num_replicas"`
}

// StreamState is what one server's copy of a stream holds.
type StreamState struct {
	Msgs       uint64 `json:"messages"`
	Bytes      uint64 `json:"bytes"`
	FirstSeq   uint64 `json:"first_seq"`
	LastSeq    uint64 `json:"last_seq"`
	NumDeleted int    `json:"num_deleted"`
}

// Leader is the stream's leader as this server sees it, "" when it sees
// none or is outside a cluster.
func (s StreamDetail) Leader() string {
	if s.Cluster == nil {
		return ""
	}
	return s.Cluster.Leader
}

// Stream finds the server's copy of stream, and false when it holds
// none.
func (j Jsz) Stream(stream string) (StreamDetail, bool) {
	for _, a := range j.Accounts {
		for _, s := range a.Streams {
			if s.Name == stream {
				s.Account = a.ID
				return s, true
			}
		}
	}
	return StreamDetail{}, false
}

// Jsz reads n's /jsz: the meta group, no streams.
func (m Monitor) Jsz(ctx context.Context, n Node) (Jsz, error) {
	var j Jsz
	err := m.Get(ctx, n, "/jsz", &j)
	return j, err
}

// JszStreams reads n's /jsz with its copy of every stream, each with its
// config and raft group.
func (m Monitor) JszStreams(ctx context.Context, n Node) (Jsz, error) {
	var j Jsz
	err := m.Get(ctx, n, "/jsz?accounts=true&streams=true&config=true&raft=true", &j)
	return j, err
}

// LocalStream reads n's own copy of stream; ok is false when n holds none
// (yet).
func (m Monitor) LocalStream(ctx context.Context, n Node, stream string) (StreamDetail, bool, error) {
	j, err := m.JszStreams(ctx, n)
	if err != nil {
		return StreamDetail{}, false, err
	}
	s, ok := j.Stream(stream)
	return s, ok, nil
}

// RaftzGroup is one server's view of a raft group, from its /raftz.
type RaftzGroup struct {
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

// Raftz reads n's view of raft group, which belongs to account (a stream's
// group to the stream's: StreamDetail.Account). /raftz without an account
// looks only in the system account's groups (nats-server monitor.go,
// Raftz), where no stream's group is. ok is false when n is not in the
// group; NotServed(err) on releases without /raftz (before 2.10.2x).
func (m Monitor) Raftz(ctx context.Context, n Node, account, group string) (RaftzGroup, bool, error) {
	q := url.Values{"group": {group}}
	if account != "" {
		q.Set("acc", account)
	}
	var accounts map[string]map[string]RaftzGroup
	if err := m.Get(ctx, n, "/raftz?"+q.Encode(), &accounts); err != nil {
		return RaftzGroup{}, false, err
	}
	for _, groups := range accounts {
		if g, ok := groups[group]; ok {
			return g, true, nil
		}
	}
	return RaftzGroup{}, false, nil
}

// GetJsz reads n's /jsz (the meta group) within DefaultMonitorTimeout.
func GetJsz(ctx context.Context, n Node) (Jsz, error) { return Monitor{}.Jsz(ctx, n) }
