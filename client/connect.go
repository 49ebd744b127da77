// Package client is how the toolkit talks to a cluster's clients port: one
// way to connect (Connect), one reading of what an error says about a
// request (Classify), and asking a setup request again while its answer is
// transient (RetryTransient). Workloads and anything else that connects to
// a cluster use it, so every connection carries the cluster's credentials
// and every workload records an error the same way.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Connect dials nodes[order[0]], then the others of order as fallbacks, as
// the client called name. It never dials an address the servers advertise
// (on Docker those are container addresses the host cannot reach), and it
// reconnects forever, 250 ms apart, so a fault never ends a client. opts
// come after these defaults and may change them (catchup's publishers
// raise ReconnectBufSize). The nodes' Dial (credentials and TLS of a
// cluster the toolkit did not start) comes last, so every connection
// carries it whatever opts say.
func Connect(nodes []cluster.Node, order []int, name string, opts ...nats.Option) (*nats.Conn, error) {
	if len(order) == 0 {
		return nil, fmt.Errorf("connect %s: no node to connect to", name)
	}
	urls := make([]string, 0, len(order))
	for _, i := range order {
		if i < 0 || i >= len(nodes) {
			return nil, fmt.Errorf("connect %s: no node %d among %d", name, i, len(nodes))
		}
		if nodes[i].Dial != nodes[order[0]].Dial {
			// One connection authenticates once, whichever server it reaches.
			return nil, fmt.Errorf("connect %s: nodes %s and %s carry different credentials (%s, %s)",
				name, nodes[order[0]].Name, nodes[i].Name, nodes[order[0]].Dial, nodes[i].Dial)
		}
		urls = append(urls, nodes[i].ClientURL)
	}
	all := append([]nats.Option{
		nats.Name(name),
		nats.DontRandomize(),
		nats.IgnoreDiscoveredServers(),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.Timeout(2 * time.Second),
	}, opts...)
	all = append(all, nodes[order[0]].ClientOption())
	return nats.Connect(strings.Join(urls, ","), all...)
}

// Order is the indexes of n nodes from first (modulo n) on, wrapping
// around: a client spread over the nodes by its number prefers one and
// falls back to the next ones.
func Order(first, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = ((first+i)%n + n) % n
	}
	return out
}

// ConnectWithin is Connect, asked again 250 ms apart for up to bound while
// no node takes the connection (DialTransient): a fault can come before a
// client starts, and a killed container's published port may accept and
// then close (EOF) rather than refuse, which nats.Connect does not try
// past. A refusal (credentials, TLS) returns at once, as does ctx's end.
func ConnectWithin(ctx context.Context, bound time.Duration, nodes []cluster.Node, order []int, name string, opts ...nats.Option) (*nats.Conn, error) {
	deadline := time.Now().Add(bound)
	for {
		nc, err := Connect(nodes, order, name, opts...)
		if err == nil || !DialTransient(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return nc, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// DialTransient says whether a failed dial may pass: no node answered,
// or one closed the connection or timed out before its INFO.
func DialTransient(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, nats.ErrNoServers) || errors.Is(err, nats.ErrTimeout) ||
		(errors.As(err, &ne) && ne.Timeout())
}
