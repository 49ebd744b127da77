package catchup

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/internal/latency"
)

// pubStats are the publishers' shared counters.
type pubStats struct {
	mu        sync.Mutex
	byPhase   map[Phase]*latency.Hist
	errs      map[Phase]map[string]int64
	sent      int64
	acked     int64
	ackedB    int64
	failed    int64
	timedOut  int64
	lateAcks  int64 // acked after being counted as timed out
	maxSeq    uint64
	sentBytes int64
}

func newPubStats() *pubStats {
	return &pubStats{byPhase: map[Phase]*latency.Hist{}, errs: map[Phase]map[string]int64{}}
}

// ok counts an ack of a publish sent at sent and still awaited (late:
// after it timed out, so without a latency).
func (s *pubStats) ok(ph Phase, sent, now time.Time, bytes int, seq uint64, late bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if late {
		s.lateAcks++
	} else {
		if s.byPhase[ph] == nil {
			s.byPhase[ph] = &latency.Hist{}
		}
		s.byPhase[ph].Add(now.Sub(sent))
	}
	s.acked++
	s.ackedB += int64(bytes)
	s.maxSeq = max(s.maxSeq, seq)
}

func (s *pubStats) fail(ph Phase, kind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.errs[ph] == nil {
		s.errs[ph] = map[string]int64{}
	}
	s.errs[ph][kind]++
	if kind == client.ErrNameTimeout {
		s.timedOut++
	} else {
		s.failed++
	}
}

func (s *pubStats) addSent(bytes int) {
	s.mu.Lock()
	s.sent++
	s.sentBytes += int64(bytes)
	s.mu.Unlock()
}

func (s *pubStats) lastSeq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxSeq
}

func (s *pubStats) ackedBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ackedB
}

func (s *pubStats) counts() (sent, acked, failed, timedOut int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent, s.acked, s.failed, s.timedOut
}

// PublishSummary is what catchup.json says about publishing.
type PublishSummary struct {
	Sent      int64 `json:"sent"`
	Acked     int64 `json:"acked"`
	AckedB    int64 `json:"acked_bytes"`
	Failed    int64 `json:"failed"`
	TimedOut  int64 `json:"timed_out"` // indeterminate
	LateAcks  int64 `json:"late_acks"` // acks after the timeout (counted as acked)
	SentBytes int64 `json:"sent_bytes"`
	// Latency of acknowledged publishes, by phase.
	Latency map[Phase]latency.Summary `json:"latency_by_phase"`
	// AckedMBps is the payload acknowledged per second of each phase (MB/s):
	// what the cluster took, next to what --rate asked.
	AckedMBps map[Phase]float64 `json:"acked_mb_per_s_by_phase,omitempty"`
	// Errors by phase, then kind (timeout, no_responders, api_<code>, ...).
	Errors map[Phase]map[string]int64 `json:"errors_by_phase,omitempty"`
	// PerSecond is only in cells stored before the history held publishes.
	PerSecond []PublishSecond `json:"per_second,omitempty"`
}

// PublishSecond is one second of publishing (PerSecond).
type PublishSecond struct {
	T        int64   `json:"t_s"`
	OK       int64   `json:"ok"`
	Errors   int64   `json:"errors"`
	Timeouts int64   `json:"timeouts"`
	P50Ms    float64 `json:"p50_ms"`
	P99Ms    float64 `json:"p99_ms"`
	MaxMs    float64 `json:"max_ms"`
}

func (s *pubStats) summary() PublishSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := PublishSummary{Sent: s.sent, Acked: s.acked, AckedB: s.ackedB, Failed: s.failed, TimedOut: s.timedOut,
		LateAcks: s.lateAcks, SentBytes: s.sentBytes, Latency: map[Phase]latency.Summary{}, Errors: map[Phase]map[string]int64{}}
	for ph, h := range s.byPhase {
		out.Latency[ph] = h.Summary()
	}
	for ph, m := range s.errs {
		out.Errors[ph] = maps.Clone(m)
	}
	return out
}

// errorTotals folds errors of every phase by kind, sorted by count.
func errorTotals(m map[Phase]map[string]int64) string {
	tot := map[string]int64{}
	for _, k := range m {
		for kind, n := range k {
			tot[kind] += n
		}
	}
	kinds := slices.Collect(maps.Keys(tot))
	sort.Slice(kinds, func(i, j int) bool { return tot[kinds[i]] > tot[kinds[j]] })
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, tot[k])
	}
	return strings.Join(parts, ", ")
}
