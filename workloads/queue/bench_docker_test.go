package queue

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// throughput is what one phase moved.
type throughput struct {
	published, acked int64
	secs             float64
}

func (t throughput) String() string {
	return fmt.Sprintf("%.1f pub/s %.1f acked/s", float64(t.published)/t.secs, float64(t.acked)/t.secs)
}

func (t *throughput) add(o throughput) {
	t.published, t.acked, t.secs = t.published+o.published, t.acked+o.acked, t.secs+o.secs
}

// BenchmarkDockerThroughput measures, on one cluster in one run, the
// harness's rate against a bare nats.go loop doing the same work: the
// same producers publishing with Nats-Msg-Id one at a time as fast as
// they go, the same durable consumers and workers fetching and AckSyncing,
// over the same R3 stream, but recording nothing. After a bare warm-up
// that is not counted (a fresh cluster's first stream ran slower), phases
// alternate in ABBA order (bare, harness, harness, bare, ...): in plain
// alternation whichever went second ran later on average, so a machine
// whose load drifted favoured one side. Both phases of a round have their
// leaders placed alike (placeLeaders). Run with -run '^$' -bench
// DockerThroughput -benchtime 1x.
func BenchmarkDockerThroughput(b *testing.B) {
	rt := celltest.Docker(b)
	ctx := context.Background()
	cfg := cluster.Config{Dir: b.TempDir(), RunID: fmt.Sprintf("queue-bench-%d", time.Now().UnixNano())}.WithDefaults()
	c, err := rt.Start(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(context.Background())
	o := Defaults
	o.Rate, o.NakRate, o.SkipRate = 0, 0, 0
	const phase, rounds = 8 * time.Second, 4
	bareLoop(b, c, o, phase/2)
	var bare, harness throughput
	for range b.N {
		for round := range rounds {
			var bt, ht throughput
			bareSide := func() { bt = placed(b, c, o, round, bareSetup)(phase) }
			harnessSide := func() { ht = placed(b, c, o, round, harnessSetup)(phase) }
			if round%2 == 0 {
				bareSide()
				harnessSide()
			} else {
				harnessSide()
				bareSide()
			}
			b.Logf("round %d: bare %s, harness %s", round, bt, ht)
			bare.add(bt)
			harness.add(ht)
		}
	}
	report(b, bare, harness)
}

// report gives the harness's rates over the bare loop's, and each rate.
func report(b *testing.B, bare, harness throughput) {
	b.ReportMetric(float64(harness.published)/harness.secs/(float64(bare.published)/bare.secs), "publish-ratio")
	b.ReportMetric(float64(harness.acked)/harness.secs/(float64(bare.acked)/bare.secs), "consume-ratio")
	b.ReportMetric(float64(bare.published)/bare.secs, "bare-pub/s")
	b.ReportMetric(float64(harness.published)/harness.secs, "harness-pub/s")
	b.ReportMetric(float64(bare.acked)/bare.secs, "bare-acked/s")
	b.ReportMetric(float64(harness.acked)/harness.secs, "harness-acked/s")
}

// harnessLoop runs the workload's Run for d and counts, from its history,
// the publishes acknowledged and the AckSyncs confirmed within those d.
// Both sides count over d alone: what completes while the clients stop
// (a fetch waiting out FetchWait, the harness's goroutines joining) is
// no rate of either.
func harnessLoop(b *testing.B, c cluster.Cluster, o Options, d time.Duration) throughput {
	return harnessSetup(b, c, o)(d)
}

// harnessSetup does the workload's Setup; its run is harnessLoop's timed part.
func harnessSetup(b *testing.B, c cluster.Cluster, o Options) func(time.Duration) throughput {
	dir := b.TempDir()
	rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	env := &workloads.Env{Cluster: c, Dir: dir, History: rec, Phase: func(string) {}, Logf: b.Logf}
	inst, err := o.Setup(context.Background(), env)
	if err != nil {
		rec.Close()
		b.Fatal(err)
	}
	return func(d time.Duration) throughput {
		defer rec.Close()
		ctx, cancel := context.WithTimeout(context.Background(), d)
		start, end := rec.Now(), rec.Now()+int64(d)
		err := inst.Run(ctx, nil)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		t := throughput{secs: d.Seconds()}
		for _, op := range rec.Ops() {
			if op.Complete < start || op.Complete > end {
				continue
			}
			switch {
			case op.Type == OpPublish && op.Outcome == history.OK:
				t.published++
			case op.Type == OpAckSync && op.Outcome == history.OK:
				t.acked++
			}
		}
		deleteStream(b, inst.(*instance).js, o.stream())
		inst.Close()
		return t
	}
}

// bareLoop does the same with nats.go alone, counting what completes
// before its deadline.
func bareLoop(b *testing.B, c cluster.Cluster, o Options, d time.Duration) throughput {
	return bareSetup(b, c, o)(d)
}

// bareSetup creates the bare loop's stream and consumers; its run is
// bareLoop's timed part.
func bareSetup(b *testing.B, c cluster.Cluster, o Options) func(time.Duration) throughput {
	nodes := c.Nodes()
	admin, err := client.Connect(nodes, client.Order(0, len(nodes)), "bench-admin")
	if err != nil {
		b.Fatal(err)
	}
	js, _ := jetstream.New(admin)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: o.stream(), Subjects: []string{o.subjectPrefix() + ">"},
		Replicas: o.Replicas, Storage: jetstream.FileStorage, Duplicates: o.DuplicateWindow.D()}); err != nil {
		b.Fatal(err)
	}
	for _, name := range o.ConsumerNames() {
		if _, err := js.CreateConsumer(ctx, o.stream(), jetstream.ConsumerConfig{Durable: name, AckPolicy: jetstream.AckExplicitPolicy,
			AckWait: o.AckWait.D(), MaxDeliver: o.MaxDeliver}); err != nil {
			b.Fatal(err)
		}
	}
	return func(d time.Duration) throughput {
		defer admin.Close()
		return bareRun(b, nodes, o, js, d)
	}
}

// bareRun is the bare loop's producers and workers for d.
func bareRun(b *testing.B, nodes []cluster.Node, o Options, js jetstream.JetStream, d time.Duration) throughput {
	ctx := context.Background()
	var published, acked atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	for p := 0; p < o.Producers; p++ {
		wg.Go(func() {
			nc, _ := client.Connect(nodes, client.Order(p, len(nodes)), "bench-p")
			defer nc.Close()
			pjs, _ := jetstream.New(nc)
			for n := 1; time.Now().Before(deadline); n++ {
				v := Value(ProducerID(p), n)
				pctx, cancel := context.WithTimeout(ctx, o.PublishTimeout.D())
				if _, err := pjs.Publish(pctx, o.subjectPrefix()+ProducerID(p), []byte(v), jetstream.WithMsgID(v)); err == nil && time.Now().Before(deadline) {
					published.Add(1)
				}
				cancel()
			}
		})
	}
	for ci, name := range o.ConsumerNames() {
		for w := 0; w < o.Workers; w++ {
			wg.Go(func() {
				nc, _ := client.Connect(nodes, client.Order(ci+w, len(nodes)), "bench-w")
				defer nc.Close()
				wjs, _ := jetstream.New(nc)
				cons, err := wjs.Consumer(ctx, o.stream(), name)
				if err != nil {
					return
				}
				for time.Now().Before(deadline) {
					batch, err := cons.Fetch(o.Batch, jetstream.FetchMaxWait(o.FetchWait.D()))
					if err != nil {
						continue
					}
					for m := range batch.Messages() {
						actx, cancel := context.WithTimeout(ctx, ackTimeout)
						if m.DoubleAck(actx) == nil && time.Now().Before(deadline) {
							acked.Add(1)
						}
						cancel()
					}
				}
			})
		}
	}
	wg.Wait()
	t := throughput{published: published.Load(), acked: acked.Load(), secs: d.Seconds()}
	deleteStream(b, js, o.stream())
	return t
}

func deleteStream(b *testing.B, js jetstream.JetStream, stream string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := js.DeleteStream(ctx, stream); err != nil {
		b.Fatalf("delete stream: %v", err)
	}
}
