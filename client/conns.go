package client

import (
	"fmt"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Conns opens a workload's connections, each first to one node, and
// closes them all at the end. It is safe for concurrent use.
type Conns struct {
	Nodes []cluster.Node
	mu    sync.Mutex
	open  []*nats.Conn
}

// Connect opens a connection named name that tries node first, then the
// others in order (Order), with the cluster's credentials (Connect).
func (c *Conns) Connect(first int, name string) (*nats.Conn, error) {
	nc, err := Connect(c.Nodes, Order(first, len(c.Nodes)), name)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", name, err)
	}
	c.mu.Lock()
	c.open = append(c.open, nc)
	c.mu.Unlock()
	return nc, nil
}

// Close closes every connection opened so far.
func (c *Conns) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, nc := range c.open {
		nc.Close()
	}
	c.open = nil
}
