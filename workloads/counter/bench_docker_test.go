package counter

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
)

// BenchmarkDockerThroughput measures, on one cluster in one run, the
// harness's acknowledged adds per second against a bare loop of the same
// client calls: the same adders on every node publishing Nats-Incr with a
// Nats-Msg-Id, and the same reader on every node alternating Direct Get
// and the leader's message get, recording nothing. Phases alternate (bare,
// harness, bare, harness) so the machine's drift falls on both. Run with
// -run '^$' -bench DockerThroughput -benchtime 1x.
func BenchmarkDockerThroughput(b *testing.B) {
	c := celltest.BenchCluster(b, "counter")
	o := Defaults
	o.DirectGet = true
	const phase = 8 * time.Second
	celltest.Paired(b, "add", "adds", func() celltest.Rate { return bareAdds(b, c, o, phase) },
		func() celltest.Rate {
			return celltest.HarnessPhase(b, c, o, o.DirectGet, phase, func(op history.Op) bool {
				return op.Type == OpAdd && op.Outcome == history.OK
			})
		})
}

// bareAdds does the same with nats.go alone.
func bareAdds(b *testing.B, c cluster.Cluster, o Options, d time.Duration) celltest.Rate {
	nodes := c.Nodes()
	admin, err := client.Connect(nodes, client.Order(0, len(nodes)), "bench-admin")
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	js, _ := jetstream.New(admin)
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: o.Stream, Subjects: []string{o.Stream + ".>"},
		Replicas: o.Replicas, Storage: jetstream.FileStorage, AllowMsgCounter: true, AllowDirect: true}); err != nil {
		b.Fatal(err)
	}
	counters := o.counters()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var acked atomic.Uint64
	var wg sync.WaitGroup
	conn := func(i int) *nats.Conn {
		nc, err := client.Connect(nodes, client.Order(i, len(nodes)), "bench")
		if err != nil {
			b.Error(err)
		}
		return nc
	}
	start := time.Now()
	for a := range o.Clients * len(nodes) {
		wg.Go(func() {
			nc := conn(a)
			if nc == nil {
				return
			}
			defer nc.Close()
			ajs, _ := jetstream.New(nc)
			rng := rand.New(rand.NewPCG(o.Seed, uint64(a)))
			for n := 1; ctx.Err() == nil; n++ {
				m := nats.NewMsg(counters[rng.IntN(len(counters))])
				m.Header.Set(incrHeader, strconv.FormatInt(o.delta(rng), 10))
				m.Header.Set(jetstream.MsgIDHeader, strconv.Itoa(a)+"."+strconv.Itoa(n))
				actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.Timeout)
				if _, err := ajs.PublishMsg(actx, m); err == nil {
					acked.Add(1)
				}
				cancel()
			}
		})
	}
	for r := range nodes {
		wg.Go(func() {
			nc := conn(r)
			if nc == nil {
				return
			}
			defer nc.Close()
			for n := 0; ctx.Err() == nil; n++ {
				if n%2 == 0 {
					_, _ = readDirect(ctx, nc, o.Stream, counters[n%len(counters)])
				} else {
					_, _ = readLeader(ctx, nc, o.Stream, counters[n%len(counters)])
				}
			}
		})
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	celltest.DeleteStream(b, c, o.Stream)
	return celltest.Rate{N: float64(acked.Load()), Secs: secs}
}
