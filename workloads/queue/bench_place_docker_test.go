package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// placed sets up one side and places its leaders from node first.
func placed(b *testing.B, c cluster.Cluster, o Options, first int, setup func(*testing.B, cluster.Cluster, Options) func(time.Duration) throughput) func(time.Duration) throughput {
	run := setup(b, c, o)
	placeLeaders(b, c, o, first)
	return run
}

// placeLeaders moves the leader of o's stream to node first and that of
// its i-th consumer to node first+1+i (mod the nodes), so that two sides
// placed alike load the cluster alike: left to chance, one side's stream
// leader shared a node with the other's consumers in some rounds and not
// in others. Side by side, rounds' publish ratios ranged 0.55 to 1.1 with
// the leaders left to chance and 0.98 to 1.03 with them placed. It asks the
// group's leader to step down with the node preferred (nats-server
// jetstream_api.go, JSApiLeaderStepdownRequest's Placement, 2.11 and
// later) until the info names it.
func placeLeaders(b *testing.B, c cluster.Cluster, o Options, first int) {
	nodes := c.Nodes()
	nc, err := client.Connect(nodes, client.Order(0, len(nodes)), "bench-place")
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stream := o.stream()
	leaderOf := func() (string, error) {
		s, err := js.Stream(ctx, stream)
		if err != nil {
			return "", err
		}
		return s.CachedInfo().Cluster.Leader, nil
	}
	move(b, ctx, nc, "$JS.API.STREAM.LEADER.STEPDOWN."+stream, nodes[first%len(nodes)].Name, leaderOf)
	for i, name := range o.ConsumerNames() {
		leaderOf := func() (string, error) {
			ci, err := js.Consumer(ctx, stream, name)
			if err != nil {
				return "", err
			}
			return ci.CachedInfo().Cluster.Leader, nil
		}
		move(b, ctx, nc, fmt.Sprintf("$JS.API.CONSUMER.LEADER.STEPDOWN.%s.%s", stream, name), nodes[(first+1+i)%len(nodes)].Name, leaderOf)
	}
}

// move asks subject's group to step down to want until leaderOf names it.
func move(b *testing.B, ctx context.Context, nc *nats.Conn, subject, want string, leaderOf func() (string, error)) {
	body, _ := json.Marshal(map[string]any{"placement": map[string]string{"preferred": want}})
	for {
		got, err := leaderOf()
		if err == nil && got == want {
			return
		}
		if err == nil && got != "" {
			if _, err := nc.RequestWithContext(ctx, subject, body); err != nil && ctx.Err() == nil {
				b.Logf("%s to %s: %v, asking again", subject, want, err)
			}
		}
		select {
		case <-ctx.Done():
			b.Fatalf("%s: the leader is not %s within a minute (last %q, %v)", subject, want, got, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
