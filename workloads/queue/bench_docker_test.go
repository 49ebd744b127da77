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
// whose load drifted favoured one side. Run with -run '^$' -bench
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
			if round%2 == 0 {
				bt = bareLoop(b, c, o, phase)
				ht = harnessLoop(b, c, o, phase)
			} else {
				ht = harnessLoop(b, c, o, phase)
				bt = bareLoop(b, c, o, phase)
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

// harnessLoop runs the workload's Run for d and counts acknowledged
// publishes and confirmed AckSyncs from its history.
func harnessLoop(b *testing.B, c cluster.Cluster, o Options, d time.Duration) throughput {
	dir := b.TempDir()
	rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	env := &workloads.Env{Cluster: c, Dir: dir, History: rec, Phase: func(string) {}, Logf: b.Logf}
	inst, err := o.Setup(context.Background(), env)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	start := time.Now()
	err = inst.Run(ctx, nil)
	secs := time.Since(start).Seconds()
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	var t throughput
	for _, op := range rec.Ops() {
		switch {
		case op.Type == OpPublish && op.Outcome == history.OK:
			t.published++
		case op.Type == OpAckSync && op.Outcome == history.OK:
			t.acked++
		}
	}
	t.secs = secs
	deleteStream(b, inst.(*instance).js, o.stream())
	inst.Close()
	return t
}

// bareLoop does the same with nats.go alone.
func bareLoop(b *testing.B, c cluster.Cluster, o Options, d time.Duration) throughput {
	nodes := c.Nodes()
	admin, err := client.Connect(nodes, client.Order(0, len(nodes)), "bench-admin")
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
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
	var published, acked atomic.Int64
	var wg sync.WaitGroup
	deadline := time.Now().Add(d)
	start := time.Now()
	for p := 0; p < o.Producers; p++ {
		wg.Go(func() {
			nc, _ := client.Connect(nodes, client.Order(p, len(nodes)), "bench-p")
			defer nc.Close()
			pjs, _ := jetstream.New(nc)
			for n := 1; time.Now().Before(deadline); n++ {
				v := Value(ProducerID(p), n)
				pctx, cancel := context.WithTimeout(ctx, o.PublishTimeout.D())
				if _, err := pjs.Publish(pctx, o.subjectPrefix()+ProducerID(p), []byte(v), jetstream.WithMsgID(v)); err == nil {
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
						if m.DoubleAck(actx) == nil {
							acked.Add(1)
						}
						cancel()
					}
				}
			})
		}
	}
	wg.Wait()
	t := throughput{published: published.Load(), acked: acked.Load(), secs: time.Since(start).Seconds()}
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
