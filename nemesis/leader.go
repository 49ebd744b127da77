package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// localStream reads node n's own copy of the stream; ok is false when the
// node does not have it (yet).
func (e *Env) localStream(ctx context.Context, n cluster.Node) (cluster.StreamDetail, bool, error) {
	return e.monitor().LocalStream(ctx, n, e.Stream)
}

// streamLeader names the stream's leader: from stream info when there is a
// JetStream client, else from a node whose /jsz says it leads the stream.
func (e *Env) streamLeader(ctx context.Context) (string, error) {
	if e.Stream == "" {
		return "", errors.New("no workload stream set")
	}
	if l := e.watchedLeader(ctx); l != "" {
		return l, nil
	}
	var jsErr error
	if e.JS != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.probeTimeout()) // one probe timeout for the info and the /jsz below
		defer cancel()
		l, err := client.StreamLeader(ctx, e.JS, e.Stream, e.probeTimeout())
		if err == nil {
			return l, nil
		}
		jsErr = err
	}
	for _, n := range e.nodes() {
		s, ok, err := e.localStream(ctx, n)
		if err == nil && ok && s.Leader() == n.Name {
			return n.Name, nil
		}
	}
	if jsErr != nil {
		return "", fmt.Errorf("no leader for stream %s (%v; no node's /jsz claims it)", e.Stream, jsErr)
	}
	return "", fmt.Errorf("no leader for stream %s (no node's /jsz claims it)", e.Stream)
}

// watchedLeader is the leader the watcher last saw, when that node's own
// /jsz still claims it: one monitoring request, where stream info can take
// seconds while a replica catches up (a fault aimed at the catch-up then
// lands after it).
func (e *Env) watchedLeader(ctx context.Context) string {
	if e.Watch == nil {
		return ""
	}
	l := e.Watch.Now().Leader
	i := e.index(l)
	if l == "" || i < 0 {
		return ""
	}
	s, ok, err := e.localStream(ctx, e.nodes()[i])
	if err != nil || !ok || s.Leader() != l {
		return ""
	}
	return l
}

// MetaLeader names the JetStream meta leader as the first of nodes whose
// /jsz answers with one sees it.
func MetaLeader(ctx context.Context, m cluster.Monitor, nodes []cluster.Node) (string, error) {
	var errs []string
	for _, n := range nodes {
		j, err := m.Jsz(ctx, n)
		if err != nil {
			errs = append(errs, n.Name+": "+err.Error())
			continue
		}
		if j.Meta != nil && j.Meta.Leader != "" {
			return j.Meta.Leader, nil
		}
		errs = append(errs, n.Name+": no meta leader")
	}
	return "", fmt.Errorf("no meta leader: %s", strings.Join(errs, "; "))
}

// leaderMoved waits until the stream has a leader other than old.
func (e *Env) leaderMoved(ctx context.Context, old string) (bool, time.Duration, string) {
	return within(ctx, e.verifyWithin(), 100*time.Millisecond, func(ctx context.Context) (bool, string) {
		l, err := e.streamLeader(ctx)
		if err != nil {
			return false, err.Error()
		}
		if l == old {
			return false, "leader still " + old
		}
		return true, "leader moved " + old + " -> " + l
	})
}
