package docker

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/lazyfs"
	"github.com/moby/moby/client"
)

// Power loss: with Config.PowerLossStore each node's store directory on the
// host is a lazyfs FUSE mount served by this process, and the container
// bind-mounts it as usual. A SIGKILL alone loses nothing (the host's page
// cache keeps every write); PowerLoss kills the nodes, then rolls their
// stores back to what they had fsynced.

// supportsPowerLoss: FUSE must work here, and the daemon must share this
// machine's mounts (a local socket), or its containers would not see ours.
func supportsPowerLoss() error {
	cli, err := newClient()
	if err != nil {
		return cluster.Unsupported("docker", cluster.CapPowerLoss, err.Error())
	}
	host := cli.DaemonHost()
	cli.Close()
	if !strings.HasPrefix(host, "unix://") {
		return cluster.Unsupported("docker", cluster.CapPowerLoss, "the Docker daemon at "+host+" is not local, so its containers cannot see this machine's FUSE mounts")
	}
	if err := lazyfs.Available(); err != nil {
		return cluster.Unsupported("docker", cluster.CapPowerLoss, err.Error())
	}
	return nil
}

func (c *dockerCluster) supportsPowerLoss() error {
	if !c.cfg.PowerLossStore {
		return cluster.Unsupported("docker", cluster.CapPowerLoss, "this cluster was started without the FUSE store (cluster.Config.PowerLossStore)")
	}
	return supportsPowerLoss()
}

// stateDir holds a node's backing tree and trash, beside its mountpoint.
func stateDir(dataDir string) string {
	return filepath.Join(filepath.Dir(dataDir), "."+filepath.Base(dataDir)+".lazyfs")
}

// mountStores mounts every node's store through lazyfs.
func (c *dockerCluster) mountStores() error {
	if !c.cfg.PowerLossStore {
		return nil
	}
	for _, n := range c.nodes {
		fs, err := lazyfs.Mount(n.dataDir, stateDir(n.dataDir), lazyfs.Options{Owner: selfOwner})
		if err != nil {
			return fmt.Errorf("%s: power-loss store: %w", n.srv(), err)
		}
		n.store = fs
	}
	return nil
}

// closeStores unmounts the stores; the containers must be gone.
func (c *dockerCluster) closeStores() error {
	var errs []error
	for _, n := range c.nodes {
		if n.store == nil {
			continue
		}
		if err := n.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", n.srv(), err))
		}
	}
	return errors.Join(errs...)
}

var _ cluster.PowerLosser = (*dockerCluster)(nil)

// PowerLoss SIGKILLs the nodes at once, waits until Docker reports each one
// dead (its bind mount of the store is then gone), and rolls each store
// back to what it had fsynced. The nodes stay down; Start brings them back.
func (c *dockerCluster) PowerLoss(ctx context.Context, idx []int) ([]cluster.Discard, error) {
	if err := c.supportsPowerLoss(); err != nil {
		return nil, err
	}
	var nodes []*node
	for _, i := range idx {
		n, err := c.node(i)
		if err != nil {
			return nil, err
		}
		if slices.Contains(nodes, n) {
			return nil, fmt.Errorf("power loss: %s listed twice", n.srv())
		}
		nodes = append(nodes, n)
	}
	out := make([]cluster.Discard, len(nodes))
	errs := make([]error, len(nodes))
	var killed sync.WaitGroup
	for k, n := range nodes {
		killed.Go(func() {
			if _, err := c.cli.ContainerKill(ctx, n.id, client.ContainerKillOptions{Signal: "SIGKILL"}); err != nil {
				errs[k] = fmt.Errorf("kill %s: %w", n.srv(), err)
			}
		})
	}
	killed.Wait()
	var rolled sync.WaitGroup
	for k, n := range nodes {
		if errs[k] != nil {
			continue
		}
		rolled.Go(func() { out[k], errs[k] = c.cutPower(ctx, n) })
	}
	rolled.Wait()
	return out, errors.Join(errs...)
}

// cutPower waits until n is dead, then rolls its store back.
func (c *dockerCluster) cutPower(ctx context.Context, n *node) (cluster.Discard, error) {
	d := cluster.Discard{Node: n.srv()}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := c.inspect(ctx, n)
		if err != nil {
			return d, err
		}
		if !st.State.Running && !st.State.Restarting {
			break
		}
		if time.Now().After(deadline) {
			return d, fmt.Errorf("power loss: %s still running 30s after SIGKILL; its store is left alone", n.srv())
		}
		select {
		case <-ctx.Done():
			return d, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	loss, err := n.store.PowerLoss()
	d.Bytes, d.Files, d.Undone = loss.Bytes, loss.Files, loss.Removed+loss.Restored
	d.Written, d.Fsyncs, d.Largest = loss.Written, loss.Fsyncs, loss.Largest
	if err != nil {
		return d, fmt.Errorf("%s: %w", n.srv(), err)
	}
	return d, nil
}
