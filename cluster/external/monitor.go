package external

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// The monitoring endpoints are all an external cluster tells about its
// nodes: whether a node runs is whether its monitor answers.

// probe is what one monitoring request showed.
type probe int

const (
	answered probe = iota // the server answered, whatever the status
	gone                  // nothing listens: refused, reset, no route, no such host
	silent                // no answer within the timeout
	unknown               // anything else (a TLS or proxy error...)
)

func classify(err error) probe {
	switch {
	case cluster.Answered(err):
		return answered
	case cluster.Refused(err), cluster.Unreachable(err):
		return gone
	case cluster.TimedOut(err):
		return silent
	}
	return unknown
}

// readyOnce checks that every node's JetStream is current with the meta
// leader (/healthz?js-meta-only, which leaves out streams: other users'
// streams are not the run's to wait for), that each routes to exactly the
// other given nodes, and that all agree on one meta leader. A route to a
// server that is not in --server is a refusal: the checks would count
// routes wrong, and faults would miss a node.
func readyOnce(ctx context.Context, names, monitors []string, timeout time.Duration) error {
	m := cluster.Monitor{Timeout: timeout}
	leader := ""
	health := cluster.HealthzOptions{JSMetaOnly: true}
	if len(names) == 1 {
		// A lone server has no meta group, and its js-meta-only check still
		// scans every stream's store; JetStream being on is what counts.
		health = cluster.HealthzOptions{JSEnabledOnly: true}
	}
	for i, name := range names {
		n := cluster.Node{Name: name, MonitorURL: monitors[i]}
		if _, err := m.Healthz(ctx, n, health); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		r, err := m.Routez(ctx, n)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		peers := r.Peers()
		for _, p := range peers {
			if !slices.Contains(names, p) {
				return refuse("%s routes to %s, which is not in --server: give every server of the cluster", name, p)
			}
		}
		if len(peers) != len(names)-1 {
			return fmt.Errorf("%s routes to [%s], want the %d other nodes", name, strings.Join(peers, " "), len(names)-1)
		}
		if len(names) == 1 {
			return nil
		}
		j, err := m.Jsz(ctx, n)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		switch {
		case j.Meta == nil || j.Meta.Leader == "":
			return fmt.Errorf("%s sees no JetStream meta leader", name)
		case leader != "" && j.Meta.Leader != leader:
			return fmt.Errorf("nodes disagree on the meta leader (%s, %s)", leader, j.Meta.Leader)
		}
		leader = j.Meta.Leader
	}
	return nil
}

// waitReady polls readyOnce until it passes, refuses, or timeout passes.
func waitReady(ctx context.Context, names, monitors []string, probe, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		err := readyOnce(ctx, names, monitors, probe)
		if err == nil || errors.Is(err, ErrRefused) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster not ready within --connect-timeout %s: %v", timeout, err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
