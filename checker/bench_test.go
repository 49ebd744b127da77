package checker

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Benchmarks run each checker on one synthetic history of 1,000,000 ops:
// 100 clients, 1000 keys (20 of them shared by every client, picked 5% of
// the time), about half gets and half updates, 2% blind puts, 1% stale
// reads, 0.1% timeouts, 0.05% spurious 10164 rejections.
//
//	go test -run x -bench . -benchtime 1x ./checker/
//
// Metrics: ops/s (history ops checked per wall-clock second), cpu-s/op
// (CPU seconds used by the whole process, GC included, per check; the
// linearizability checker runs porcupine on all cores), peak-heap-MB (the
// highest heap in use while checking, history included) and
// check-heap-MB (that peak minus the heap in use before the check: what the
// checker itself needed).

var (
	benchOnce sync.Once
	benchHist history.History
)

func benchHistory() history.History {
	benchOnce.Do(func() {
		benchHist = simulate(simConfig{Ops: 1_000_000, Clients: 100, Keys: 1000, Contended: 20, ShareRate: 0.05,
			PutRate: 0.02, StaleRate: 0.01, InfoRate: 0.001, Spurious: 0.0005, Seed: 42})
	})
	return benchHist
}

// heapPeak samples the heap in use until stop is called.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	var peak uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, read())
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
		return max(peak, read())
	}
}

func benchChecker(b *testing.B, c Checker) {
	h := benchHistory()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	stop := heapPeak()
	cpu0 := cpuTime()
	b.ReportAllocs()
	b.ResetTimer()
	var r Result
	for i := 0; i < b.N; i++ {
		r = c.Check(h)
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	peak := stop()
	b.ReportMetric(float64(len(h.Ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "check-heap-MB")
	b.Logf("%s: %s: %s", r.Name, r.Verdict, r.Summary)
}

func BenchmarkSession(b *testing.B)     { benchChecker(b, NewSession(Options{})) }
func BenchmarkStaleRead(b *testing.B)   { benchChecker(b, NewStaleRead(Options{})) }
func BenchmarkAttribution(b *testing.B) { benchChecker(b, NewAttribution(Options{})) }
func BenchmarkIntegrity(b *testing.B)   { benchChecker(b, NewIntegrity(Options{})) }
func BenchmarkLinearizability(b *testing.B) {
	benchChecker(b, NewLinearizability(Options{OutDir: b.TempDir()}))
}
