package kvupdate

import (
	"flag"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
)

var (
	cellOps     = flag.Int("cell.ops", 200_000, "ops of the cell BenchmarkCheckDir writes and judges")
	cellKeys    = flag.Int("cell.keys", 10, "keys of that cell (kv-update's default is 10)")
	cellPartOps = flag.Int("cell.partops", 0, "checker.Options.PartOps for it (0: the default; -1: judge it whole)")
)

// BenchmarkCheckDir is a kv-update cell's check phase as `chaos check`
// runs it, from the files to the last result, on a synthetic cell of
// -cell.ops ops (one revision kept per key, every message observed). Its
// peak heap against -cell.ops, whole (-cell.partops -1) and in parts, is
// the check phase's memory against run length:
//
//	go test ./workloads/kvupdate/ -run x -bench CheckDir -benchtime 1x -cell.ops 10000000
func BenchmarkCheckDir(b *testing.B) {
	dir := b.TempDir()
	simCell{ops: *cellOps, keys: *cellKeys, clients: *cellKeys, perKey: 1, seed: 1}.write(b, dir)
	runtime.GC()
	base := heapInUse()
	stop := sampleHeapPeak()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		results, err := CheckDir(dir, checker.Options{PartOps: *cellPartOps, MaxVisualizations: -1})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range results {
			if r.Verdict != checker.Valid && r.Name != replicas.NameDivergence {
				b.Errorf("%s: %s %s", r.Name, r.Verdict, r.Summary)
			}
		}
	}
	b.StopTimer()
	peak := stop()
	b.ReportMetric(float64(*cellOps)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "check-heap-MB")
	b.ReportMetric(float64(peak-min(peak, base))/float64(*cellOps), "heap-B/op")
}

func heapInUse() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeapPeak samples the heap every millisecond until stopped.
func sampleHeapPeak() (stop func() uint64) {
	var peak uint64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, heapInUse())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return max(peak, heapInUse())
	}
}
