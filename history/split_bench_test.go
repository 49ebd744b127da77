package history

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkSplit cuts a stored cell of 1,000,000 ops over 10 keys (each
// key's get, then its update) and its stream (every revision kept) into 4
// parts, as a check in parts does first: every entry and op asks which
// part holds its sequence.
//
//	go test -run x -bench Split -benchtime 1x -count 6 ./history/
func BenchmarkSplit(b *testing.B) {
	const n, keys = 1_000_000, 10
	dir := b.TempDir()
	r, err := NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var entries []Entry
	last := make([]uint64, keys)
	for i := range n {
		k := i % keys
		op := Op{Client: k, Node: "n1", Key: fmt.Sprintf("k%d", k), Outcome: OK, Invoke: int64(i) * 1000, Complete: int64(i)*1000 + 700}
		if (i/keys)%2 == 0 {
			op.Type, op.Rev, op.Value = Get, last[k], fmt.Sprintf("c%d-%d", k, last[k])
		} else {
			op.Type, op.ExpectedRev, op.Rev, op.Value = Update, last[k], uint64(len(entries)+1), fmt.Sprintf("c%d-%d", k, len(entries)+1)
			last[k] = op.Rev
			entries = append(entries, Entry{Seq: op.Rev, Key: op.Key, Value: op.Value})
		}
		r.Add(op)
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
	if err := WriteStream(filepath.Join(dir, "stream.jsonl"), entries, true); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := SplitDir(dir, b.TempDir(), 4, nil)
		if err != nil || s.Crossed() != "" {
			b.Fatalf("%v %s", err, s.Crossed())
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
