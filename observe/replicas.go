package observe

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// ReplicaState is one server's own copy of a stream (its /jsz entry),
// read after the heal.
type ReplicaState struct {
	Node     string `json:"node"`
	Has      bool   `json:"has_stream"`
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
	Msgs     uint64 `json:"msgs"`
	Bytes    uint64 `json:"bytes"`
	Err      string `json:"error,omitempty"`
}

// Agreement compares replicas: ok when every one answered, has the stream,
// and all have the same first and last sequence and message count. The
// detail says which replica could not be read or how they differ.
func Agreement(reps []ReplicaState) (ok bool, detail string) {
	if len(reps) == 0 {
		return false, "no replica read"
	}
	var parts []string
	same := true
	for _, r := range reps {
		switch {
		case r.Err != "":
			return false, fmt.Sprintf("%s could not be read: %s", r.Node, r.Err)
		case !r.Has:
			return false, fmt.Sprintf("%s has no copy of the stream", r.Node)
		}
		parts = append(parts, fmt.Sprintf("%s first %d last %d msgs %d", r.Node, r.FirstSeq, r.LastSeq, r.Msgs))
		f := reps[0]
		if r.FirstSeq != f.FirstSeq || r.LastSeq != f.LastSeq || r.Msgs != f.Msgs {
			same = false
		}
	}
	if !same {
		return false, "replicas differ: " + strings.Join(parts, "; ")
	}
	r := reps[0]
	return true, fmt.Sprintf("all %d replicas have first %d last %d msgs %d", len(reps), r.FirstSeq, r.LastSeq, r.Msgs)
}

// Replicas reads every node's own copy of stream until they agree or bound
// passes (with publishing stopped they converge within moments of a heal),
// and returns the last reading.
func Replicas(ctx context.Context, nodes []cluster.Node, stream string, bound time.Duration) []ReplicaState {
	var mon cluster.Monitor
	deadline := time.Now().Add(bound)
	for {
		var reps []ReplicaState
		for _, n := range nodes {
			r := ReplicaState{Node: n.Name}
			s, ok, err := mon.LocalStream(ctx, n, stream)
			if err != nil {
				r.Err = OneLine(err.Error(), 160)
			}
			r.Has, r.FirstSeq, r.LastSeq, r.Msgs, r.Bytes = ok, s.State.FirstSeq, s.State.LastSeq, s.State.Msgs, s.State.Bytes
			reps = append(reps, r)
		}
		if ok, _ := Agreement(reps); ok || time.Now().After(deadline) || ctx.Err() != nil {
			return reps
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}
