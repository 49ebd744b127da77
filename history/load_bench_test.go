package history

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkReadOps loads a history.jsonl of 1,000,000 kv-update ops (gets,
// updates, a few 10071 rejections and timeouts), written by a Recorder:
// the first step of every check. heap-B/op is the live heap the loaded ops
// take per op.
//
//	go test -run x -bench ReadOps -benchtime 1x -count 6 ./history/
func BenchmarkReadOps(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "history.jsonl")
	writeSynthetic(b, path, n)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	var ops []Op
	for i := 0; i < b.N; i++ {
		ops = nil
		var err error
		if ops, err = ReadOps(path); err != nil || len(ops) != n {
			b.Fatalf("%d ops, %v", len(ops), err)
		}
	}
	b.StopTimer()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc))/n, "heap-B/op")
	runtime.KeepAlive(ops)
}

func writeSynthetic(b *testing.B, path string, n int) {
	r, err := NewRecorder(path)
	if err != nil {
		b.Fatal(err)
	}
	var rev uint64
	for i := 0; i < n; i++ {
		c := i % 10
		op := Op{Client: c, Node: fmt.Sprintf("n%d", c%3+1), Key: fmt.Sprintf("k%d", c), Outcome: OK,
			Invoke: int64(i) * 1000, Complete: int64(i)*1000 + 700}
		switch {
		case i%2 == 0:
			op.Type, op.Value, op.Rev = Get, fmt.Sprintf("c%d-%d", c, i/2), rev
		case i%97 == 1:
			op.Type, op.Value, op.ExpectedRev = Update, fmt.Sprintf("c%d-%d", c, i), rev
			op.Outcome, op.Err, op.ErrCode, op.ErrSeq, op.ErrMsg = Fail, ErrWrongLastSeq, 10071, rev+1, fmt.Sprintf("wrong last sequence: %d", rev+1)
		case i%1001 == 3:
			op.Type, op.Value, op.ExpectedRev = Update, fmt.Sprintf("c%d-%d", c, i), rev
			op.Outcome, op.Err = Info, ErrTimeout
		default:
			rev++
			op.Type, op.Value, op.ExpectedRev, op.Rev = Update, fmt.Sprintf("c%d-%d", c, i), rev-1, rev
		}
		r.Add(op)
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
}
