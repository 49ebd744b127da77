package local

import (
	"context"
	"fmt"
	"os"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// writeConf renders the node's config under its current server_name.
func (n *node) writeConf() error {
	c := n.c
	text := c.cfg.Render(cluster.ServerConf{Name: n.srv(), Host: "127.0.0.1",
		ClientPort: n.ports.Client, MonitorPort: n.ports.Monitor, ClusterPort: n.ports.Cluster,
		Routes: c.routes, StoreDir: n.store})
	return os.WriteFile(n.conf, []byte(text), 0o644)
}

// StoreDir is node i's store_dir: a directory under the cluster's Dir.
func (c *Cluster) StoreDir(i int) (string, error) {
	n, err := c.node(i)
	if err != nil {
		return "", err
	}
	return n.store, nil
}

// StartAs starts the down node i as server name: its config is rewritten
// with the new server_name (same ports, store and log file) and started as
// Start does.
func (c *Cluster) StartAs(ctx context.Context, i int, name string) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	if err := cluster.ValidServerName(name); err != nil {
		return fmt.Errorf("start %s as %s: %w", n.srv(), name, err)
	}
	for j, o := range c.nodes {
		if j != i && o.srv() == name {
			return fmt.Errorf("start %s as %s: node %d already has that name", n.srv(), name, j)
		}
	}
	n.mu.Lock()
	old := n.srv()
	if n.proc != nil {
		n.mu.Unlock()
		return fmt.Errorf("start %s as %s: %w; kill or stop it first", old, name, ErrRunning)
	}
	n.server.Store(&name)
	if err := n.writeConf(); err != nil {
		n.server.Store(&old)
		n.writeConf()
		n.mu.Unlock()
		return fmt.Errorf("start %s as %s: %w", old, name, err)
	}
	n.note("renamed from %s to %s", old, name)
	n.mu.Unlock()
	return c.Start(ctx, i)
}

// SetLoss is refused: see Supports(cluster.CapLoss).
func (c *Cluster) SetLoss(context.Context, int, float64) error { return supports(cluster.CapLoss) }

// SetRate is refused: see Supports(cluster.CapBandwidth).
func (c *Cluster) SetRate(context.Context, int, uint64) error { return supports(cluster.CapBandwidth) }

// NetStats is refused: this runtime shapes nothing.
func (c *Cluster) NetStats(context.Context, int) (cluster.NetStats, error) {
	return cluster.NetStats{}, supports(cluster.CapLoss)
}
