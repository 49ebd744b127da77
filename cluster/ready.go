package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
)

// WaitReady waits until every node is healthy, has a route to every other
// node, agrees on one meta leader, and answers a JetStream API request
// through its own client port. /healthz?js-enabled-only answers before a
// meta leader exists (nats-server monitor.go, healthz; seen on 2.15.2), so
// it is not enough; and the
// first API request right after the meta leader is known could still time
// out on a loaded machine (a flaky first write in make test).
func WaitReady(ctx context.Context, c Cluster, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if last = readyOnce(ctx, c); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster not ready after %s: %v", timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func readyOnce(ctx context.Context, c Cluster) error {
	var m Monitor
	nodes := c.Nodes()
	leader := ""
	for _, n := range nodes {
		if _, err := m.Healthz(ctx, n, HealthzOptions{}); err != nil {
			return fmt.Errorf("%s: %v", n.Name, err)
		}
		r, err := m.Routez(ctx, n)
		if err != nil {
			return fmt.Errorf("%s: %v", n.Name, err)
		}
		if p := len(r.Peers()); p != len(nodes)-1 {
			return fmt.Errorf("%s: routes to %d of %d peers", n.Name, p, len(nodes)-1)
		}
		if len(nodes) == 1 {
			return nil // a standalone server has no meta group
		}
		j, err := m.Jsz(ctx, n)
		if err != nil {
			return fmt.Errorf("%s: %v", n.Name, err)
		}
		if j.Meta == nil || j.Meta.Leader == "" {
			return fmt.Errorf("%s: no meta leader yet", n.Name)
		}
		if leader != "" && j.Meta.Leader != leader {
			return fmt.Errorf("nodes disagree on the meta leader (%s, %s)", leader, j.Meta.Leader)
		}
		leader = j.Meta.Leader
		if n.Name == leader {
			if err := metaPeersOnline(j, n.Name, nodes); err != nil {
				return fmt.Errorf("meta leader %s: %v", n.Name, err)
			}
		}
	}
	for _, n := range nodes {
		if err := apiAnswers(ctx, n); err != nil {
			return fmt.Errorf("%s: JetStream API: %v", n.Name, err)
		}
	}
	return nil
}

// metaPeersOnline says whether the meta leader's /jsz lists every other
// node as a current, online peer. Until it does, the leader may refuse to
// place a stream ("no suitable peers for placement, peer offline", 10005):
// seen right after the rest of the readiness checks passed.
func metaPeersOnline(leader Jsz, leaderName string, nodes []Node) error {
	peers := map[string]bool{}
	for _, p := range leader.Meta.Replicas {
		switch {
		case p.Offline:
			return fmt.Errorf("sees peer %s offline", p.Name)
		case !p.Current:
			return fmt.Errorf("sees peer %s not current", p.Name)
		}
		peers[p.Name] = true
	}
	for _, n := range nodes {
		if n.Name != leaderName && !peers[n.Name] {
			return fmt.Errorf("does not list %s among its peers yet", n.Name)
		}
	}
	return nil
}

// apiAnswers sends $JS.API.INFO (account info) through n's client port and
// waits for the answer.
func apiAnswers(ctx context.Context, n Node) error {
	nc, err := nats.Connect(n.ClientURL, nats.Name("chaos-ready"), nats.IgnoreDiscoveredServers(), nats.NoReconnect(),
		nats.Timeout(2*time.Second), n.ClientOption())
	if err != nil {
		return err
	}
	defer nc.Close()
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	msg, err := nc.RequestWithContext(rctx, "$JS.API.INFO", nil)
	if err != nil {
		return err
	}
	var reply struct {
		Error *struct {
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg.Data, &reply); err != nil {
		return err
	}
	if reply.Error != nil {
		return errors.New(reply.Error.Description)
	}
	return nil
}
