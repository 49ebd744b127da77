package kvupdate

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// directGetWithin bounds the wait for every replica to answer Direct Get.
//
// Why wait: a follower subscribes to $JS.API.DIRECT.GET.<stream> only on a
// 2-second tick, once it has applied ~90 % of what was committed
// (nats-server server/jetstream_cluster.go, monitorStream's
// startDirectAccessMonitoring; facts.md "Direct Get"). Without the wait,
// the first two seconds of a Direct Get on cell read from the leader only,
// and the first stale read comes 2 s into the workload at the earliest.
const directGetWithin = 10 * time.Second

// awaitDirectGet waits until the monitoring endpoint of each of the
// stream's replicas lists its Direct Get subscription. It says how long
// that took, or which replicas did not within bound (the run goes on:
// they may still start later, and the checkers judge whatever was read).
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
	var waiting []string
	monitors := map[string]string{}
	for _, n := range w.nodes {
		if slices.Contains(replicas, n.Name) && n.MonitorURL != "" {
			waiting, monitors[n.Name] = append(waiting, n.Name), n.MonitorURL
		}
	}
	if len(waiting) == 0 {
		return "no replica has a monitoring endpoint: not waited for Direct Get"
	}
	client := &http.Client{Timeout: time.Second}
	deadline := start.Add(bound)
	for len(waiting) > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		waiting = slices.DeleteFunc(waiting, func(n string) bool {
			return servesDirectGet(ctx, client, monitors[n], w.StreamName())
		})
		if len(waiting) > 0 {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if len(waiting) > 0 {
		return fmt.Sprintf("%s did not answer Direct Get within %s: the cell starts with fewer replicas serving reads",
			strings.Join(waiting, ", "), bound)
	}
	return fmt.Sprintf("all %d replicas answer Direct Get after %.1fs", len(replicas), time.Since(start).Seconds())
}

// servesDirectGet asks a node's /subsz whether it holds a local
// subscription on the stream's own Direct Get subject (the JetStream API's
// "$JS.API.>" matches the test subject too, so the list is read).
func servesDirectGet(ctx context.Context, c *http.Client, monitor, stream string) bool {
	subject := "$JS.API.DIRECT.GET." + stream
	q := url.Values{"subs": {"1"}, "test": {subject}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(monitor, "/")+"/subsz?"+q.Encode(), nil)
	if err != nil {
		return false
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var subsz struct {
		List []subszEntry `json:"subscriptions_list"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&subsz) != nil {
		return false
	}
	return slices.ContainsFunc(subsz.List, func(e subszEntry) bool {
		return e.Subject == subject || e.Subject == subject+".>"
	})
}

type subszEntry struct {
	Subject string `json:"subject"`
}
