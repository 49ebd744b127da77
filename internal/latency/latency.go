// Package latency summarizes latencies in constant memory: a log-scale
// histogram with four bins per doubling from 1 µs, so a percentile read from
// it is within 19 % (a bin's width) whatever the number of values, plenty to
// tell 2 ms from 200 ms. The exact maximum is kept, and caps every
// percentile. The report's charts, catchup's publish and read summaries
// and queue's delivery latencies all read their percentiles here.
package latency

import (
	"math"
	"time"
)

// Bins is the number of bins: 2^(128/4) µs is over an hour.
const Bins = 128

// Hist is a latency histogram. The zero value is empty and ready; it is not
// safe for concurrent use.
type Hist struct {
	bins [Bins]uint32
	n    int64
	sum  time.Duration
	max  time.Duration
}

func bin(d time.Duration) int {
	us := float64(d) / float64(time.Microsecond)
	if us <= 1 {
		return 0
	}
	return min(int(4*math.Log2(us)), Bins-1)
}

// upper is the upper bound of bin i.
func upper(i int) time.Duration {
	return time.Duration(math.Exp2(float64(i+1)/4) * float64(time.Microsecond))
}

// Add counts one latency.
func (h *Hist) Add(d time.Duration) {
	h.bins[bin(d)]++
	h.n++
	h.sum += d
	h.max = max(h.max, d)
}

// Merge adds o's counts to h.
func (h *Hist) Merge(o *Hist) {
	for i := range h.bins {
		h.bins[i] += o.bins[i]
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// Count is the number of latencies added.
func (h *Hist) Count() int64 { return h.n }

// Max is the largest latency added, exactly.
func (h *Hist) Max() time.Duration { return h.max }

// Mean is the mean latency, 0 when empty.
func (h *Hist) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}

// Quantile is the q-quantile (0..1): the upper bound of the bin that holds
// the value of that rank (nearest rank), capped by the exact maximum; 0 when
// empty.
func (h *Hist) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := max(int64(math.Ceil(q*float64(h.n))), 1)
	var seen int64
	for i, c := range h.bins {
		seen += int64(c)
		if seen >= rank && i < Bins-1 { // the last bin has no upper bound
			return min(upper(i), h.max)
		}
	}
	return h.max
}

// Summary is a histogram's summary in milliseconds, as the stored files
// record it.
type Summary struct {
	Count  int64   `json:"count"`
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P90Ms  float64 `json:"p90_ms"`
	P99Ms  float64 `json:"p99_ms"`
	P999Ms float64 `json:"p999_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// Summary summarizes h; the zero Summary when h is empty.
func (h *Hist) Summary() Summary {
	if h.n == 0 {
		return Summary{}
	}
	return Summary{
		Count:  h.n,
		MeanMs: Ms(h.Mean()),
		P50Ms:  Ms(h.Quantile(0.5)),
		P90Ms:  Ms(h.Quantile(0.9)),
		P99Ms:  Ms(h.Quantile(0.99)),
		P999Ms: Ms(h.Quantile(0.999)),
		MaxMs:  Ms(h.max),
	}
}

// Ms is d in milliseconds, rounded to the microsecond.
func Ms(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

// Percentile is the nearest-rank p-th percentile (0..100) of sorted values,
// exact, for the few thousand values a summary keeps whole; 0 when empty.
func Percentile(sorted []int64, p float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	// The epsilon, not math.Ceil: 0.99*1000 is 990.0000000000001 in
	// floating point, and its rank is 990.
	i := int(p/100*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
