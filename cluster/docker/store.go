package docker

import (
	"context"
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// StoreDir is the host directory bind-mounted as node i's store_dir. A
// store on tmpfs has none: it is gone whenever the node is down.
func (c *dockerCluster) StoreDir(i int) (string, error) {
	n, err := c.node(i)
	if err != nil {
		return "", err
	}
	if n.dataDir == "" {
		return "", fmt.Errorf("store of %s: %w", n.srv(), storeOnTmpfs(cluster.CapStoreFiles))
	}
	return n.dataDir, nil
}

func storeOnTmpfs(cp cluster.Capability) error {
	return cluster.Unsupported("docker", cp, "the store is on tmpfs (store_on_tmpfs), which goes with the container whenever the node stops")
}

// StartAs starts the stopped node i as server name: its config is
// rewritten with the new server_name and the container started again. The
// container, its network alias (which the routes name) and its ports stay.
func (c *dockerCluster) StartAs(ctx context.Context, i int, name string) error {
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
	st, err := c.inspect(ctx, n)
	if err != nil {
		return err
	}
	if st.State.Running || st.State.Restarting {
		return fmt.Errorf("start %s as %s: the node is running; stop or kill it first", n.srv(), name)
	}
	old := n.srv()
	n.server.Store(&name)
	if _, err := c.writeConf(n); err != nil {
		n.server.Store(&old)
		c.writeConf(n)
		return fmt.Errorf("start %s as %s: %w", old, name, err)
	}
	return c.Start(ctx, i)
}
