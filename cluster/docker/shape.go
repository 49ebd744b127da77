package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// SetLoss drops percent of the packets between node i and its peers, each
// way, with netfault's nftables rules in the node (numgen random). It is
// state, like a partition: it is (re)applied whenever the node runs
// unpaused, so it holds across restarts (a new container start gets a
// fresh network namespace) and follows peers' new addresses.
func (c *dockerCluster) SetLoss(ctx context.Context, i int, percent float64) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	if percent < 0 || percent > 100 {
		return fmt.Errorf("set loss of %s: %v%% is not a percentage from 0 to 100", n.srv(), percent)
	}
	c.mu.Lock()
	idle := percent == n.loss && !n.lossSet && percent == 0
	n.loss = percent
	c.mu.Unlock()
	if idle {
		return nil // nothing in force, nothing asked: no execs
	}
	return c.applyNetwork(ctx)
}

// SetRate limits what node i sends on its cluster network, to clients and
// peers alike, with a tc tbf qdisc that netfault puts at the root of the
// container's interface (netlink: the image has no tc). State, like
// SetLoss.
func (c *dockerCluster) SetRate(ctx context.Context, i int, bytesPerSec uint64) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	c.mu.Lock()
	idle := bytesPerSec == 0 && n.rate == 0 && !n.rateSet
	n.rate = bytesPerSec
	c.mu.Unlock()
	if idle {
		return nil
	}
	return c.applyNetwork(ctx)
}

// NetStats reads the counters of node i's loss rules and tbf qdisc
// (netfault stats). The node must run unpaused.
func (c *dockerCluster) NetStats(ctx context.Context, i int) (cluster.NetStats, error) {
	n, err := c.node(i)
	if err != nil {
		return cluster.NetStats{}, err
	}
	out, err := c.netfaultOutput(ctx, n, "stats")
	if err != nil {
		return cluster.NetStats{}, err
	}
	var st cluster.NetStats
	if err := json.Unmarshal(out, &st); err != nil {
		return cluster.NetStats{}, fmt.Errorf("%s: netfault stats: %w: %s", n.srv(), err, shorten(oneLine(string(out)), 200))
	}
	return st, nil
}

// shapedLocked reports whether any node has a loss or rate in force, or one
// that may still need removing. c.mu must be held.
func (c *dockerCluster) shapedLocked() bool {
	for _, n := range c.nodes {
		if n.loss > 0 || n.rate > 0 || n.lossSet || n.rateSet {
			return true
		}
	}
	return false
}

// applyShaping brings node i's loss and rate to the state asked for; ips
// are every node's addresses. netfault leaves a state already in force
// alone, so re-applying keeps its counters. It runs only for a node whose
// loss or rate is or was set. Called by applyNetwork with applyMu held.
func (c *dockerCluster) applyShaping(ctx context.Context, i int, ips []string) error {
	n := c.nodes[i]
	c.mu.Lock()
	loss, rate, lossSet, rateSet := n.loss, n.rate, n.lossSet, n.rateSet
	c.mu.Unlock()
	if loss > 0 || lossSet {
		args := []string{"loss", strconv.FormatFloat(loss, 'f', -1, 64)}
		if loss > 0 {
			for j, ip := range ips {
				if j != i && ip != "" {
					args = append(args, ip)
				}
			}
			if len(args) == 2 {
				return fmt.Errorf("%s: set loss: no peer has an address yet", n.srv())
			}
		}
		if err := c.netfault(ctx, n, args...); err != nil {
			return err
		}
		c.mu.Lock()
		n.lossSet = loss > 0
		c.mu.Unlock()
	}
	if rate > 0 || rateSet {
		if err := c.netfault(ctx, n, "rate", strconv.FormatUint(rate, 10)); err != nil {
			return err
		}
		c.mu.Lock()
		n.rateSet = rate > 0
		c.mu.Unlock()
	}
	return nil
}
