package reports

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/latency"
)

func TestSeriesBuckets(t *testing.T) {
	ops := []history.Op{
		{Type: history.Get, Outcome: history.OK, Invoke: 0, Complete: 1e6},
		{Type: history.Update, Outcome: history.OK, Invoke: 1e6, Complete: 3e6},
		{Type: history.Update, Outcome: history.Fail, Err: history.ErrWrongLastSeq, Invoke: 3e6, Complete: 15e6},
		{Type: history.Update, Outcome: history.Info, Err: history.ErrTimeout, Invoke: 15e6, Complete: 25e6},
		{Type: history.Fault, Client: history.NemesisClient, Invoke: 0, Complete: 30e6},
		{Type: history.Update, Outcome: history.Fail, Invoke: 25e6, Complete: 26e6}, // no kind: other
	}
	s := SeriesOf(ops)
	if s.Width != baseWidth || len(s.Buckets) != 3 || s.Ops != 5 || s.End != 26e6 {
		t.Fatalf("series: width %s, %d buckets, %d ops, end %d", s.Width, len(s.Buckets), s.Ops, s.End)
	}
	b0, b1, b2 := s.Buckets[0], s.Buckets[1], s.Buckets[2]
	if b0.Reads != 1 || b0.Writes != 1 || b1.Failed != 1 || b1.Errs["wrong_last_seq"] != 1 || b2.Info != 1 || b2.Errs["timeout"] != 1 || b2.Errs["other"] != 1 {
		t.Errorf("buckets: %+v %+v %+v", b0, b1, b2)
	}
	if strings.Join(s.Kinds, ",") != "other,timeout,wrong_last_seq" {
		t.Errorf("kinds %v", s.Kinds)
	}
}

// However long the history, the buckets stay bounded and nothing is lost.
func TestSeriesMergesToBound(t *testing.T) {
	var ops []history.Op
	for i := int64(0); i < 100000; i++ {
		t := i * 1e6 // one op a ms for 100 s
		ops = append(ops, history.Op{Type: history.Get, Outcome: history.OK, Invoke: t, Complete: t + 500e3})
	}
	s := SeriesOf(ops)
	if len(s.Buckets) > maxBuckets {
		t.Errorf("%d buckets, bound %d", len(s.Buckets), maxBuckets)
	}
	total := 0
	for _, b := range s.Buckets {
		total += b.Reads
	}
	if total != len(ops) {
		t.Errorf("buckets hold %d ops, want %d", total, len(ops))
	}
	if s.Width != 640*time.Millisecond || s.Span() < 100 {
		t.Errorf("width %s, span %.1fs", s.Width, s.Span())
	}
	if q := quantileMs(&s.Buckets[3].readLat, 0.5); math.Abs(q-0.5)/0.5 > 0.15 {
		t.Errorf("p50 latency %.3fms, want about 0.5ms", q)
	}
}

func TestEmptyBucketHasNoLatencyPoint(t *testing.T) {
	var e latency.Hist
	if !math.IsNaN(quantileMs(&e, 0.5)) {
		t.Error("the quantile of an empty bucket is not NaN")
	}
}

func TestReadSeriesTornLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "history.jsonl")
	body := `{"client":0,"type":"get","outcome":"ok","invoke":1,"complete":2}` + "\n" + `{"client":0,"ty`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSeries(p)
	if err != nil || s.Ops != 1 {
		t.Errorf("torn last line: %v, %+v", err, s)
	}
	body = "garbage\n" + `{"client":0,"type":"get","outcome":"ok","invoke":1,"complete":2}` + "\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSeries(p); err == nil {
		t.Error("a bad line in the middle was accepted")
	}
}

// writeBigHistory writes n ops of a single-writer history over secs
// seconds, with a fault in the middle, as the recorder would.
func writeBigHistory(tb testing.TB, path string, n int, secs float64) {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	step := secs * 1e9 / float64(n)
	for i := 0; i < n; i++ {
		t := int64(float64(i) * step)
		op := history.Op{Client: i % 10, Node: "n1", Type: history.Get, Key: fmt.Sprintf("k%d", i%10), Value: fmt.Sprintf("c%d-%d", i%10, i/20),
			Rev: uint64(i / 2), Outcome: history.OK, Invoke: t, Complete: t + 400e3 + int64(i%7)*100e3}
		if i%2 == 1 {
			op.Type, op.ExpectedRev = history.Update, uint64(i/2)
			if i%97 == 1 {
				op.Outcome, op.Err, op.ErrCode, op.Rev = history.Fail, history.ErrWrongLastSeq, 10071, 0
			}
		}
		if err := enc.Encode(op); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkRender1M renders a run whose one cell has a million ops: the
// history is streamed into bounded buckets, so time is the JSON decoding
// and the page stays the same size whatever the history's length.
func BenchmarkRender1M(b *testing.B) {
	s := reportstest.SyntheticMatrix()
	s.Cells = s.Cells[:1]
	s.Res.Cells = s.Res.Cells[:1]
	s.Cells[0].Ops = nil
	dir := reportstest.WriteRun(b, s)
	writeBigHistory(b, filepath.Join(dir, s.Res.Cells[0].Name, "history.jsonl"), 1_000_000, 300)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Write(dir); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	st, err := os.Stat(filepath.Join(dir, HTMLFile))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size())/1024, "page-KiB")
}
