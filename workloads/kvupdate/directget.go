package kvupdate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// directGetWithin bounds the wait for every replica to answer Direct Get.
//
// Why wait: a follower subscribes to $JS.API.DIRECT.GET.<stream> only on a
// 2-second tick, once it has applied ~90 % of what was committed
// (nats-server server/jetstream_cluster.go, monitorStream's
// startDirectAccessMonitoring). Without the wait,
// the first two seconds of a Direct Get on cell read from the leader only,
// and the first stale read comes 2 s into the workload at the earliest.
const directGetWithin = 10 * time.Second

// awaitDirectGet waits until the monitoring endpoint of each of the
// stream's replicas lists its Direct Get subscription
// (cluster.ServesDirectGet). It says how long that took, or which replicas
// did not within bound (the run goes on: they may still start later, and
// the checkers judge whatever was read).
func (w *Workload) awaitDirectGet(ctx context.Context, bound time.Duration) string {
	start := time.Now()
	s, err := w.js.Stream(ctx, w.StreamName())
	if err != nil {
		return fmt.Sprintf("could not ask which replicas answer Direct Get: %v", err)
	}
	ci := s.CachedInfo().Cluster
	if ci == nil {
		return "could not ask which replicas answer Direct Get: the stream info has no cluster"
	}
	replicas := []string{ci.Leader}
	for _, r := range ci.Replicas {
		replicas = append(replicas, r.Name)
	}
	var waiting []cluster.Node
	for _, n := range w.nodes {
		if slices.Contains(replicas, n.Name) && n.MonitorURL != "" {
			waiting = append(waiting, n)
		}
	}
	if len(waiting) == 0 {
		return "no replica has a monitoring endpoint: not waited for Direct Get"
	}
	deadline := start.Add(bound)
	for len(waiting) > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		waiting = slices.DeleteFunc(waiting, func(n cluster.Node) bool {
			ok, _ := cluster.ServesDirectGet(ctx, n, w.StreamName())
			return ok
		})
		if len(waiting) > 0 {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if len(waiting) > 0 {
		names := make([]string, len(waiting))
		for i, n := range waiting {
			names[i] = n.Name
		}
		return fmt.Sprintf("%s did not answer Direct Get within %s: the cell starts with fewer replicas serving reads",
			strings.Join(names, ", "), bound)
	}
	return fmt.Sprintf("all %d replicas answer Direct Get after %.1fs", len(replicas), time.Since(start).Seconds())
}
