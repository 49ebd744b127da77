package kvcheck

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
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
// highest heap in use while checking, history and uncollected garbage
// included), check-heap-MB (that peak minus the live heap before the check)
// and check-live-MB (the highest live heap seen by the GC during the check,
// minus the live heap before: what the checker itself holds).

var (
	benchCfg = simConfig{Ops: 1_000_000, Clients: 100, Keys: 1000, Contended: 20, ShareRate: 0.05,
		PutRate: 0.02, StaleRate: 0.01, InfoRate: 0.001, Spurious: 0.0005, Seed: 42}
	// Only the last history generated is kept, so that one does not
	// inflate the heap (and the GC's target) while another is checked.
	lastCfg  simConfig
	lastHist history.History
)

func historyFor(cfg simConfig) history.History {
	if cfg != lastCfg || lastHist.Ops == nil {
		lastHist = history.History{}
		runtime.GC()
		lastCfg, lastHist = cfg, simulate(cfg)
	}
	return lastHist
}

func benchHistory() history.History { return historyFor(benchCfg) }

// cleanHistory is the same workload against a linearizable store (no stale
// reads, no spurious rejections): every piece goes through porcupine.
func cleanHistory() history.History {
	cfg := benchCfg
	cfg.StaleRate, cfg.Spurious = 0, 0
	return historyFor(cfg)
}

// heapPeak samples the heap until stop is called, and returns the highest
// heap in use (live and garbage) and the highest live heap (as of the last
// GC).
func heapPeak() (stop func() (inUse, live uint64)) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	var peak, peakLive uint64
	read := func() uint64 {
		metrics.Read(sample)
		peakLive = max(peakLive, sample[1].Value.Uint64())
		return sample[0].Value.Uint64()
	}
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
	return func() (uint64, uint64) {
		close(done)
		<-finished
		peak = max(peak, read())
		return peak, peakLive
	}
}

func benchChecker(b *testing.B, c Checker) { benchOn(b, benchHistory(), c) }

func benchOn(b *testing.B, h history.History, c Checker) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc // live: just collected
	stop := heapPeak()
	cpu0 := cpuTime()
	b.ReportAllocs()
	b.ResetTimer()
	var r checker.Result
	for i := 0; i < b.N; i++ {
		r = c.Check(h)
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	peak, live := stop()
	b.ReportMetric(float64(len(h.Ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "check-heap-MB")
	b.ReportMetric(float64(live-min(live, base))/(1<<20), "check-live-MB")
	b.Logf("%s: %s: %s", r.Name, r.Verdict, r.Summary)
}

func BenchmarkSession(b *testing.B)     { benchChecker(b, NewSession(checker.Options{})) }
func BenchmarkStaleRead(b *testing.B)   { benchChecker(b, NewStaleRead(checker.Options{})) }
func BenchmarkAttribution(b *testing.B) { benchChecker(b, NewAttribution(checker.Options{})) }
func BenchmarkIntegrity(b *testing.B)   { benchChecker(b, NewIntegrity(checker.Options{})) }
func BenchmarkLinearizability(b *testing.B) {
	benchChecker(b, NewLinearizability(checker.Options{OutDir: b.TempDir()}))
}

func BenchmarkLinearizabilityClean(b *testing.B) {
	benchOn(b, cleanHistory(), NewLinearizability(checker.Options{OutDir: b.TempDir()}))
}
