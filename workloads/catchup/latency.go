package catchup

import (
	"math"
	"time"
)

// Publish latencies are counted in a log-scale histogram, four buckets per
// doubling from 1 µs: constant memory however many millions of publishes,
// and percentiles within 19 % (the bucket's width), plenty to tell 2 ms
// from 200 ms. Max is kept exactly.

const latBuckets = 128 // 2^(128/4) µs is over an hour

type latHist struct {
	n   [latBuckets]uint32
	cnt int64
	sum time.Duration
	max time.Duration
}

func latBucket(d time.Duration) int {
	us := float64(d) / float64(time.Microsecond)
	if us <= 1 {
		return 0
	}
	return min(int(4*math.Log2(us)), latBuckets-1)
}

// latUpper is the upper bound of bucket i.
func latUpper(i int) time.Duration {
	return time.Duration(math.Exp2(float64(i+1)/4) * float64(time.Microsecond))
}

func (h *latHist) add(d time.Duration) {
	h.n[latBucket(d)]++
	h.cnt++
	h.sum += d
	h.max = max(h.max, d)
}

func (h *latHist) merge(o *latHist) {
	for i := range h.n {
		h.n[i] += o.n[i]
	}
	h.cnt += o.cnt
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// quantile is the upper bound of the bucket holding the q-th value, capped
// by the exact max.
func (h *latHist) quantile(q float64) time.Duration {
	if h.cnt == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.cnt)))
	if rank < 1 {
		rank = 1
	}
	var seen int64
	for i, c := range h.n {
		seen += int64(c)
		if seen >= rank {
			return min(latUpper(i), h.max)
		}
	}
	return h.max
}

// Latency is a latency summary in ms.
type Latency struct {
	Count  int64   `json:"count"`
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P90Ms  float64 `json:"p90_ms"`
	P99Ms  float64 `json:"p99_ms"`
	P999Ms float64 `json:"p999_ms"`
	MaxMs  float64 `json:"max_ms"`
}

func (h *latHist) summary() Latency {
	if h.cnt == 0 {
		return Latency{}
	}
	return Latency{
		Count:  h.cnt,
		MeanMs: msf(h.sum / time.Duration(h.cnt)),
		P50Ms:  msf(h.quantile(0.5)),
		P90Ms:  msf(h.quantile(0.9)),
		P99Ms:  msf(h.quantile(0.99)),
		P999Ms: msf(h.quantile(0.999)),
		MaxMs:  msf(h.max),
	}
}

func msf(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }
