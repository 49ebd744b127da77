package docker

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// BenchmarkKVUpdateStore is the power-loss store's cost on the kv-update
// workload (defaults, Direct Get off, no faults): acknowledged ops per
// second on a plain host directory and on the FUSE store, run in pairs
// (plain, then lazyfs, 15 s each on a fresh cluster) so that both halves of
// a pair see the same load on a shared machine. It reports both rates and
// their ratio, with the default sync_interval and with always:
//
//	go test -run '^$' -bench KVUpdateStore -benchtime 3x ./cluster/docker
func BenchmarkKVUpdateStore(b *testing.B) {
	testenv.Require(b, testenv.Docker(Available), testenv.FUSE(supportsPowerLoss))
	for _, sync := range []string{"default", "always"} {
		b.Run("sync="+sync, func(b *testing.B) {
			cfg := cluster.Config{RunID: "bench-store"}
			if sync == "always" {
				cfg.SyncInterval = "always"
			}
			var plain, fuse float64
			for b.Loop() {
				cfg.PowerLossStore = false
				plain += kvThroughput(b, cfg, 15*time.Second)
				cfg.PowerLossStore = true
				fuse += kvThroughput(b, cfg, 15*time.Second)
			}
			b.ReportMetric(plain/float64(b.N), "plain-ok-ops/s")
			b.ReportMetric(fuse/float64(b.N), "lazyfs-ok-ops/s")
			b.ReportMetric(fuse/plain, "lazyfs/plain")
		})
	}
}

// kvThroughput runs kv-update on a fresh cluster for d and returns its
// acknowledged ops per second.
func kvThroughput(b *testing.B, cfg cluster.Config, d time.Duration) float64 {
	b.StopTimer()
	defer b.StartTimer()
	c := startCluster(b, cfg)
	ctx := context.Background()
	w, err := kvupdate.Setup(ctx, c.Nodes(), kvupdate.Options{}.WithDefaults())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	rec, err := history.NewRecorder(filepath.Join(b.TempDir(), "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	var acked atomic.Int64
	rec.Watch(func(op history.Op) {
		if op.Outcome == history.OK {
			acked.Add(1)
		}
	})
	rctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	b.StartTimer()
	if err := w.Run(rctx, rec); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	return float64(acked.Load()) / d.Seconds()
}
