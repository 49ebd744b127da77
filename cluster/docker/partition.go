package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	tcexec "github.com/testcontainers/testcontainers-go/exec"
)

// Partition cuts the private network between groups with netfault inside
// every running node: each node drops packets to and from the addresses of
// all nodes outside its group. Client traffic comes from the host through the
// published ports (the bridge gateway address), which is never blocked.
// Nodes that are down or paused get their rules when they come back.
func (c *dockerCluster) Partition(ctx context.Context, groups [][]int) error {
	if err := validGroups(groups, len(c.nodes)); err != nil {
		return err
	}
	c.mu.Lock()
	c.groups = append([][]int{}, groups...)
	if c.groups == nil {
		c.groups = [][]int{} // non-nil: partitioned, with everyone alone
	}
	c.mu.Unlock()
	return c.applyNetwork(ctx)
}

// Heal removes every partition rule.
func (c *dockerCluster) Heal(ctx context.Context) error {
	c.mu.Lock()
	c.groups = nil
	c.mu.Unlock()
	return c.applyNetwork(ctx)
}

func validGroups(groups [][]int, n int) error {
	seen := map[int]bool{}
	for _, g := range groups {
		for _, i := range g {
			if i < 0 || i >= n {
				return fmt.Errorf("partition: no node %d in a %d-node cluster", i, n)
			}
			if seen[i] {
				return fmt.Errorf("partition: node %d is in two groups", i)
			}
			seen[i] = true
		}
	}
	return nil
}

// blockedFor lists, for every node, the nodes it must not talk to: all in
// other groups, or all others when it is in no group. nil groups: none.
func blockedFor(groups [][]int, n int) [][]int {
	out := make([][]int, n)
	if groups == nil {
		return out
	}
	group := make([]int, n)
	for i := range group {
		group[i] = -1
	}
	for g, members := range groups {
		for _, i := range members {
			group[i] = g
		}
	}
	for i := range n {
		for j := range n {
			if i != j && (group[i] < 0 || group[i] != group[j]) {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}

// applyNetwork makes every running, unpaused node's rules match the
// partition, loss and rate in force (see shape.go for the last two).
// Addresses are read afresh: a restarted container may have a new one. A
// down node keeps its last known address, so its peers still block it when
// it returns before the next apply.
func (c *dockerCluster) applyNetwork(ctx context.Context) error {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	// Each node is inspected, then set, at once with the others: a fault
	// aimed at a moment (partition-leader@catchup-start) lands as soon as
	// the slowest node's rules are in, not after every node's in turn.
	up := make([]bool, len(c.nodes))
	errs := make([]error, 2*len(c.nodes))
	var wg sync.WaitGroup
	for i, n := range c.nodes {
		wg.Go(func() {
			st, err := c.inspect(ctx, n)
			if err != nil {
				errs[i] = err
				return
			}
			up[i] = st.State.Running && !st.State.Paused && !st.State.Restarting
			if ep := st.NetworkSettings; ep != nil && ep.Networks[c.netName] != nil && ep.Networks[c.netName].IPAddress.IsValid() {
				c.mu.Lock()
				n.ip = ep.Networks[c.netName].IPAddress.String()
				c.mu.Unlock()
			}
		})
	}
	wg.Wait()
	c.mu.Lock()
	blocked := blockedFor(c.groups, len(c.nodes))
	ips := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		ips[i] = n.ip
	}
	c.mu.Unlock()
	for i, n := range c.nodes {
		if !up[i] {
			continue
		}
		wg.Go(func() {
			if err := c.netfault(ctx, n, isolateArgs(blocked[i], ips)...); err != nil {
				errs[i] = errors.Join(errs[i], err)
			}
			errs[len(c.nodes)+i] = c.applyShaping(ctx, i, ips)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// isolateArgs are netfault's arguments for a node that must not talk to
// blocked: heal when there is nobody with an address to block.
func isolateArgs(blocked []int, ips []string) []string {
	args := []string{"isolate"}
	for _, j := range blocked {
		if ips[j] != "" {
			args = append(args, ips[j])
		}
	}
	if len(args) == 1 {
		return []string{"heal"} // none, or peers that never had an address: nothing to block yet
	}
	return args
}

// netfault runs /netfault in the node as root (the container runs as the
// caller's uid, and only root holds the NET_ADMIN capability added to it).
// Exec returns once the output has ended and the daemon reports the exit code.
func (c *dockerCluster) netfault(ctx context.Context, n *node, args ...string) error {
	_, err := c.netfaultOutput(ctx, n, args...)
	return err
}

// netfaultOutput runs netfault and returns what it printed.
func (c *dockerCluster) netfaultOutput(ctx context.Context, n *node, args ...string) ([]byte, error) {
	cmd := append([]string{"/netfault"}, args...)
	code, out, err := n.ctr.Exec(ctx, cmd, tcexec.WithUser("0:0"), tcexec.Multiplexed())
	if err != nil {
		return nil, fmt.Errorf("%s: netfault %s: %w", n.srv(), args[0], err)
	}
	msg, _ := io.ReadAll(out)
	if code != 0 {
		return nil, fmt.Errorf("%s: netfault %s exited %d: %s", n.srv(), args[0], code, strings.TrimSpace(string(msg)))
	}
	return msg, nil
}
