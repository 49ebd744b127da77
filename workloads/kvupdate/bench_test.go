package kvupdate

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/local"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
)

// BenchmarkHarnessOverhead measures what recording costs: one client's
// get-then-update loop through the workload's client (classification,
// recorder, stats) against a bare nats.go loop on the same R3 bucket of the
// same 3-node cluster. Both run interleaved in chunks within one run, so the
// ratio is robust to a noisy machine; compare runs with benchstat.
func BenchmarkHarnessOverhead(b *testing.B) {
	testenv.Require(b, testenv.Processes(serverbin.Path))
	ctx := context.Background()
	dir := b.TempDir()
	c, err := local.New().Start(ctx, cluster.Config{Dir: dir, RunID: "bench"}.WithDefaults())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	w, err := Setup(ctx, c.Nodes(), Options{Keys: 1, Clients: 1, DirectGet: false}.WithDefaults())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	cl, err := w.newClient(ctx, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer cl.close()
	bare := cl.kv
	const chunk = 50
	var bareTime, recTime time.Duration
	var bareOps, recOps int
	key := Key(0)
	if _, err := bare.Put(ctx, key, []byte("seed")); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for done := 0; done < b.N; done += chunk {
		t := time.Now()
		for i := 0; i < chunk; i++ {
			if err := bareStep(ctx, bare, key, i); err != nil {
				b.Fatal(err)
			}
		}
		bareTime += time.Since(t)
		bareOps += 2 * chunk
		t = time.Now()
		for i := 0; i < chunk; i++ {
			got := cl.get(rec, key)
			cl.update(rec, key, got.Rev)
		}
		recTime += time.Since(t)
		recOps += 2 * chunk
	}
	b.StopTimer()
	bareRate := float64(bareOps) / bareTime.Seconds()
	recRate := float64(recOps) / recTime.Seconds()
	b.ReportMetric(bareRate, "bare-ops/s")
	b.ReportMetric(recRate, "recorded-ops/s")
	b.ReportMetric(recRate/bareRate, "recorded/bare")
}

func bareStep(ctx context.Context, kv jetstream.KeyValue, key string, i int) error {
	e, err := kv.Get(ctx, key)
	if err != nil {
		return err
	}
	_, err = kv.Update(ctx, key, []byte(fmt.Sprintf("bare-%d", i)), e.Revision())
	return err
}
