package reports

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/latency"
)

// Series is a history bucketed over time: what the charts need, in memory
// bounded by maxBuckets whatever the history's length. Ops are placed by
// their complete time (ns since the run start).
type Series struct {
	Width   time.Duration // bucket width
	Buckets []Bucket
	Ops     int   // client ops read
	End     int64 // latest complete time, ns
	// Kinds lists the error kinds seen, most frequent first.
	Kinds []string
}

// Bucket is one slot of a Series.
type Bucket struct {
	Reads, Writes int // ok ops
	Failed, Info  int
	Errs          map[string]int // non-ok ops by error kind
	readLat       latency.Hist
	writeLat      latency.Hist
}

// maxBuckets bounds the buckets of a Series; the width starts at
// baseWidth and doubles whenever a later op would not fit.
const (
	maxBuckets = 240
	baseWidth  = 10 * time.Millisecond
)

// slimOp is the part of a history line the charts read.
type slimOp struct {
	Type     history.OpType  `json:"type"`
	Client   int             `json:"client"`
	Outcome  history.Outcome `json:"outcome"`
	Err      history.ErrKind `json:"err"`
	Invoke   int64           `json:"invoke"`
	Complete int64           `json:"complete"`
}

// ReadSeries streams a history.jsonl file into a Series. A torn last line
// is ignored, as history.ReadOps does.
func ReadSeries(path string) (*Series, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readSeries(f, path)
}

func readSeries(r io.Reader, name string) (*Series, error) {
	s := newSeriesBuilder()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	var pending error
	var op slimOp // one for all lines: it escapes to the heap through json
	for sc.Scan() {
		line++
		if pending != nil {
			return nil, pending
		}
		if err := decodeOp(sc.Bytes(), &op); err != nil {
			pending = fmt.Errorf("%s:%d: %w", name, line, err)
			continue
		}
		s.add(&op)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return s.done(), nil
}

// SeriesOf buckets ops already in memory.
func SeriesOf(ops []history.Op) *Series {
	s := newSeriesBuilder()
	for i := range ops {
		o := &ops[i]
		s.add(&slimOp{Type: o.Type, Client: o.Client, Outcome: o.Outcome, Err: o.Err, Invoke: o.Invoke, Complete: o.Complete})
	}
	return s.done()
}

type seriesBuilder struct {
	s     Series
	kinds map[string]int
	reads map[history.OpType]bool // history.IsRead of each type seen
}

func newSeriesBuilder() *seriesBuilder {
	return &seriesBuilder{s: Series{Width: baseWidth}, kinds: map[string]int{}, reads: map[history.OpType]bool{}}
}

// isRead is history.IsRead, once per type.
func (b *seriesBuilder) isRead(t history.OpType) bool {
	r, ok := b.reads[t]
	if !ok {
		r = history.IsRead(t)
		b.reads[t] = r
	}
	return r
}

func (b *seriesBuilder) add(op *slimOp) {
	if op.Type == history.Fault || op.Client == history.NemesisClient {
		return
	}
	s := &b.s
	t := max(op.Complete, 0)
	i := int(t / int64(s.Width))
	for i >= maxBuckets {
		s.merge()
		i = int(t / int64(s.Width))
	}
	for len(s.Buckets) <= i {
		s.Buckets = append(s.Buckets, Bucket{})
	}
	bk := &s.Buckets[i]
	s.Ops++
	s.End = max(s.End, op.Complete)
	lat := op.Complete - op.Invoke
	switch {
	case op.Outcome == history.OK:
		if b.isRead(op.Type) {
			bk.Reads++
			bk.readLat.Add(time.Duration(lat))
		} else {
			bk.Writes++
			bk.writeLat.Add(time.Duration(lat))
		}
	default:
		if op.Outcome == history.Info {
			bk.Info++
		} else {
			bk.Failed++
		}
		kind := string(op.Err)
		if kind == "" {
			kind = string(history.ErrOther)
		}
		if bk.Errs == nil {
			bk.Errs = map[string]int{}
		}
		bk.Errs[kind]++
		b.kinds[kind]++
	}
}

// merge doubles the bucket width, folding pairs of buckets together.
func (s *Series) merge() {
	s.Width *= 2
	n := (len(s.Buckets) + 1) / 2
	for i := 0; i < n; i++ {
		a := s.Buckets[2*i]
		if 2*i+1 < len(s.Buckets) {
			c := &s.Buckets[2*i+1]
			a.Reads += c.Reads
			a.Writes += c.Writes
			a.Failed += c.Failed
			a.Info += c.Info
			for k, v := range c.Errs {
				if a.Errs == nil {
					a.Errs = map[string]int{}
				}
				a.Errs[k] += v
			}
			a.readLat.Merge(&c.readLat)
			a.writeLat.Merge(&c.writeLat)
		}
		s.Buckets[i] = a
	}
	clear(s.Buckets[n:])
	s.Buckets = s.Buckets[:n]
}

func (b *seriesBuilder) done() *Series {
	for k := range b.kinds {
		b.s.Kinds = append(b.s.Kinds, k)
	}
	sort.Slice(b.s.Kinds, func(i, j int) bool {
		ki, kj := b.s.Kinds[i], b.s.Kinds[j]
		if b.kinds[ki] != b.kinds[kj] {
			return b.kinds[ki] > b.kinds[kj]
		}
		return ki < kj
	})
	return &b.s
}

// x is the left edge of bucket i in seconds.
func (s *Series) x(i int) float64 { return float64(i) * s.Width.Seconds() }

// mid is the middle of bucket i in seconds.
func (s *Series) mid(i int) float64 { return (float64(i) + 0.5) * s.Width.Seconds() }

// Span is the time the series covers, in seconds.
func (s *Series) Span() float64 { return float64(len(s.Buckets)) * s.Width.Seconds() }
