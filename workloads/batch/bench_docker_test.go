package batch

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
)

// BenchmarkDockerThroughput measures, on one cluster in one run, the
// harness's acknowledged batches per second against a bare loop of the
// same client calls: the same producers on every node committing batches
// of the same size through orbit.go's batch publisher, the same ordered
// consumer on every node and the same multi-subject reads, recording
// nothing. Every batch commits (no refused kinds: the bare loop has none).
// Phases alternate (bare, harness, bare, harness) so the machine's drift
// falls on both. Run with -run '^$' -bench DockerThroughput -benchtime 1x.
func BenchmarkDockerThroughput(b *testing.B) {
	c := celltest.BenchCluster(b, "batch")
	o := Defaults
	o.Mix, o.DirectGet = Mix{}, true
	const phase = 8 * time.Second
	celltest.Paired(b, "batch", "batches", func() celltest.Rate { return bareBatches(b, c, o, phase) },
		func() celltest.Rate {
			return celltest.HarnessPhase(b, c, o, o.DirectGet, phase, func(op history.Op) bool {
				return op.Type == OpBatch && op.Outcome == history.OK
			})
		})
}

// bareBatches does the same with nats.go and orbit.go alone.
func bareBatches(b *testing.B, c cluster.Cluster, o Options, d time.Duration) celltest.Rate {
	nodes := c.Nodes()
	admin, err := client.Connect(nodes, client.Order(0, len(nodes)), "bench-admin")
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	js, _ := jetstream.New(admin)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: o.Stream, Subjects: []string{o.Stream + ".>"},
		Replicas: o.Replicas, Storage: jetstream.FileStorage, AllowAtomicPublish: true, AllowDirect: true}); err != nil {
		b.Fatal(err)
	}
	subjects := make([]string, o.Subjects)
	for s := range subjects {
		subjects[s] = fmt.Sprintf("%s.s%d", o.Stream, s)
	}
	var acked, highest atomic.Uint64
	var wg sync.WaitGroup
	conn := func(i int) (jetstream.JetStream, *nats.Conn) {
		nc, err := client.Connect(nodes, client.Order(i, len(nodes)), "bench")
		if err != nil {
			b.Error(err)
			return nil, nil
		}
		pjs, _ := jetstream.New(nc)
		return pjs, nc
	}
	start := time.Now()
	for p := range o.Producers * len(nodes) {
		wg.Go(func() {
			pjs, nc := conn(p)
			if nc == nil {
				return
			}
			defer nc.Close()
			for n := 1; ctx.Err() == nil; n++ {
				id := strconv.Itoa(p) + "." + strconv.Itoa(n)
				bp, _ := jetstreamext.NewBatchPublisher(pjs)
				msg := func(i int) *nats.Msg {
					m := nats.NewMsg(subjects[(n+i)%len(subjects)])
					m.Data = []byte(id + "." + strconv.Itoa(i))
					m.Header.Set(BatchHeader, id)
					m.Header.Set(IndexHeader, strconv.Itoa(i))
					return m
				}
				for i := 1; i < o.BatchSize; i++ {
					_ = bp.AddMsg(msg(i))
				}
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				ack, err := bp.CommitMsg(cctx, msg(o.BatchSize))
				cancel()
				if err == nil {
					acked.Add(1)
					for h := highest.Load(); ack.Sequence > h && !highest.CompareAndSwap(h, ack.Sequence); h = highest.Load() {
					}
				}
			}
		})
	}
	for r := range nodes {
		wg.Go(func() {
			rjs, nc := conn(r)
			if nc == nil {
				return
			}
			defer nc.Close()
			cons, err := rjs.OrderedConsumer(ctx, o.Stream, jetstream.OrderedConsumerConfig{})
			if err != nil {
				return
			}
			it, err := cons.Messages()
			if err != nil {
				return
			}
			go func() { <-ctx.Done(); it.Stop() }()
			for {
				m, err := it.Next()
				if err != nil {
					return
				}
				_, _ = m.Metadata()
			}
		})
		wg.Go(func() {
			rjs, nc := conn(r)
			if nc == nil {
				return
			}
			defer nc.Close()
			for ctx.Err() == nil {
				up := highest.Load()
				if up == 0 {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				gctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				if msgs, err := jetstreamext.GetLastMsgsFor(gctx, rjs, o.Stream, subjects, jetstreamext.GetLastMsgsUpToSeq(up)); err == nil {
					for range msgs {
					}
				}
				cancel()
			}
		})
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	celltest.DeleteStream(b, c, o.Stream)
	return celltest.Rate{N: float64(acked.Load()), Secs: secs}
}
