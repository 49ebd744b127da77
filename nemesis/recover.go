package nemesis

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/client"
)

// Recovery is how the cluster came back after the final heal. Not
// recovering is a result, not an error: Detail then says what was last seen.
type Recovery struct {
	Recovered bool          `json:"recovered"`
	Took      time.Duration `json:"took_ns"`
	Detail    string        `json:"detail"`
}

// WaitRecovered waits up to bound until the cluster has recovered: every
// node healthy (/healthz), routes to every peer, one meta leader, and, when
// env.Stream is set, the stream has a leader and every replica is current
// and online. Run Restore (Schedule.Run does) before.
func WaitRecovered(ctx context.Context, env *Env, bound time.Duration) Recovery {
	start := time.Now()
	ok, took, seen := within(ctx, bound, 250*time.Millisecond, env.recovered)
	if !ok {
		return Recovery{Took: took, Detail: fmt.Sprintf("did not recover within %s: %s", secs(bound), seen)}
	}
	return Recovery{Recovered: true, Took: time.Since(start), Detail: fmt.Sprintf("recovered after %s: %s", secs(took), seen)}
}

func (e *Env) recovered(ctx context.Context) (bool, string) {
	nodes := e.nodes()
	for _, n := range nodes {
		if ok, s := e.healthy(ctx, n); !ok {
			return false, s
		}
	}
	if ok, s := e.routesFull(ctx, nil); !ok {
		return false, s
	}
	meta := ""
	for _, n := range nodes {
		j, err := e.monitor().Jsz(ctx, n)
		if err != nil {
			return false, fmt.Sprintf("%s /jsz: %v", n.Name, err)
		}
		if j.Meta == nil || j.Meta.Leader == "" {
			return false, n.Name + " sees no meta leader"
		}
		if meta != "" && j.Meta.Leader != meta {
			return false, fmt.Sprintf("meta leader disputed: %s and %s", meta, j.Meta.Leader)
		}
		meta = j.Meta.Leader
	}
	if e.Stream == "" {
		return true, "all nodes healthy, routes full, meta leader " + meta
	}
	ok, s := e.streamCurrent(ctx)
	if !ok {
		return false, s
	}
	return true, "all nodes healthy, routes full, meta leader " + meta + ", " + s
}

// streamCurrent checks that the stream has a leader and all its replicas
// are current and online: from stream info when there is a JetStream
// client, else from the leader's /jsz.
func (e *Env) streamCurrent(ctx context.Context) (bool, string) {
	type replica struct {
		name             string
		current, offline bool
		lag              uint64
	}
	var leader string
	var want int
	var reps []replica
	if e.JS != nil {
		info, err := client.StreamInfo(ctx, e.JS, e.Stream, e.probeTimeout())
		if err != nil {
			return false, fmt.Sprintf("stream %s info: %v", e.Stream, err)
		}
		want = info.Config.Replicas
		if info.Cluster != nil {
			leader = info.Cluster.Leader
			for _, r := range info.Cluster.Replicas {
				reps = append(reps, replica{r.Name, r.Current, r.Offline, r.Lag})
			}
		}
	} else {
		for _, n := range e.nodes() {
			s, ok, err := e.localStream(ctx, n)
			if err != nil || !ok || s.Leader() != n.Name {
				continue
			}
			leader = n.Name
			if s.Config != nil {
				want = s.Config.Replicas
			}
			for _, r := range s.Cluster.Replicas {
				reps = append(reps, replica{r.Name, r.Current, r.Offline, r.Lag})
			}
			break
		}
	}
	if leader == "" {
		return false, "stream " + e.Stream + " has no leader"
	}
	if want == 0 {
		want = 1
	}
	var bad []string
	for _, r := range reps {
		if !r.current || r.offline {
			bad = append(bad, fmt.Sprintf("%s current=%v offline=%v lag=%d", r.name, r.current, r.offline, r.lag))
		}
	}
	switch {
	case len(bad) > 0:
		return false, fmt.Sprintf("stream %s (leader %s) replicas behind: %s", e.Stream, leader, strings.Join(bad, ", "))
	case len(reps) != want-1:
		return false, fmt.Sprintf("stream %s (leader %s) reports %d of %d followers", e.Stream, leader, len(reps), want-1)
	}
	return true, fmt.Sprintf("stream %s leader %s with %d current replicas", e.Stream, leader, len(reps))
}
