package latency

import (
	"testing"
	"time"
)

func TestQuantilesWithinABin(t *testing.T) {
	var h Hist
	for i := 1; i <= 1000; i++ {
		h.Add(time.Duration(i) * time.Millisecond)
	}
	s := h.Summary()
	if s.Count != 1000 || s.MaxMs != 1000 || s.MeanMs != 500.5 {
		t.Fatalf("summary %+v", s)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"p50", s.P50Ms, 500}, {"p90", s.P90Ms, 900}, {"p99", s.P99Ms, 990}, {"p99.9", s.P999Ms, 999}} {
		// A bin's upper bound: up to 19 % above the true value, never below.
		if c.got < c.want || c.got > c.want*1.2 {
			t.Errorf("%s = %.1fms, want %.0fms within 19%%", c.name, c.got, c.want)
		}
	}
}

func TestQuantileCappedByTheExactMax(t *testing.T) {
	var h Hist
	for range 10 {
		h.Add(500 * time.Microsecond)
	}
	if q := h.Quantile(0.5); q != 500*time.Microsecond {
		t.Errorf("p50 of ten equal values = %v, want 500µs", q)
	}
}

func TestEmptyAndZeroLength(t *testing.T) {
	var empty Hist
	if empty.Summary() != (Summary{}) || empty.Quantile(0.99) != 0 || empty.Mean() != 0 {
		t.Error("an empty histogram has a summary")
	}
	var zero Hist
	zero.Add(0)
	if s := zero.Summary(); s.Count != 1 || s.MaxMs != 0 || s.P99Ms != 0 {
		t.Errorf("a zero-length latency: %+v", s)
	}
	var huge Hist
	huge.Add(100 * time.Hour) // beyond the last bin: counted there, max exact
	if huge.Max() != 100*time.Hour || huge.Quantile(1) != 100*time.Hour {
		t.Errorf("an op of 100h: max %v p100 %v", huge.Max(), huge.Quantile(1))
	}
}

func TestMergeIsTheSumOfItsParts(t *testing.T) {
	var a, b, all Hist
	for i := 1; i <= 200; i++ {
		d := time.Duration(i*i) * time.Microsecond
		all.Add(d)
		if i%2 == 0 {
			a.Add(d)
		} else {
			b.Add(d)
		}
	}
	a.Merge(&b)
	if a != all {
		t.Errorf("merged %+v, want %+v", a.Summary(), all.Summary())
	}
}

func TestPercentileNearestRank(t *testing.T) {
	thousand := make([]int64, 1000)
	for i := range thousand {
		thousand[i] = int64(i + 1)
	}
	for _, c := range []struct {
		vals []int64
		p    float64
		want int64
	}{
		{nil, 50, 0},
		{[]int64{7}, 0, 7},
		{[]int64{7}, 100, 7},
		{[]int64{1, 2, 3, 4}, 50, 2},
		{[]int64{1, 2, 3, 4}, 51, 3},
		{thousand, 99, 990}, // 0.99*1000 is 990.0000000000001 in floating point
		{thousand, 100, 1000},
	} {
		if got := Percentile(c.vals, c.p); got != c.want {
			t.Errorf("Percentile(%d values, %v) = %d, want %d", len(c.vals), c.p, got, c.want)
		}
	}
}
