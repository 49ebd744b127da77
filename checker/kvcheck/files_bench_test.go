package kvcheck

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

var filesOps = flag.Int("files.ops", 1_000_000, "ops of the history BenchmarkCheckFromFiles writes and checks")

// BenchmarkCheckFromFiles is the check phase of a cell as `chaos check`
// runs it, from files on disk to the last result: history.Load, then every
// checker of a kv-update cell one after the other (the scale workload, its
// stream kept whole). Its peak heap against -files.ops is the check
// phase's memory against run length:
//
//	go test -run x -bench CheckFromFiles -benchtime 1x -files.ops 4000000 ./checker/
func BenchmarkCheckFromFiles(b *testing.B) {
	cfg := scaleCfg
	cfg.Ops, cfg.PurgeRate, cfg.StaleRate = *filesOps, 0, 0
	dir := b.TempDir()
	func() {
		h, _ := simulateScale(cfg)
		writeOps(b, filepath.Join(dir, "history.jsonl"), h.Ops)
		if err := history.WriteStream(filepath.Join(dir, "stream.jsonl"), h.Stream, true); err != nil {
			b.Fatal(err)
		}
	}()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	stop := heapPeak()
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		h, err := history.Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		n = len(h.Ops)
		final := Final{Entries: h.Stream, Complete: true, Observed: h.Stream}
		opts := checker.Options{OutDir: b.TempDir()}
		for _, r := range Run(h, append(All(opts), NewRetention(opts, final), NewDeletes(opts, final))) {
			if r.Verdict != checker.Valid {
				b.Errorf("%s: %s %s", r.Name, r.Verdict, r.Summary)
			}
		}
	}
	b.StopTimer()
	peak, live := stop()
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(peak-min(peak, base))/(1<<20), "check-heap-MB")
	b.ReportMetric(float64(live-min(live, base))/(1<<20), "check-live-MB")
	b.ReportMetric(float64(peak-min(peak, base))/float64(n), "heap-B/op")
}

func writeOps(b *testing.B, path string, ops []history.Op) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	for i := range ops {
		if err := enc.Encode(&ops[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}
