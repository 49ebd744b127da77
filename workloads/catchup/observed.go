package catchup

import (
	"fmt"
	"math"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// What the harness did to the target; the rest are observe's, which
// Event.Unasked tells apart.
const (
	EvKill  observe.EventKind = "kill"         // SIGKILL, asked
	EvWipe  observe.EventKind = "wipe"         // store deleted, asked
	EvStart observe.EventKind = "start"        // start, asked
	EvLimit observe.EventKind = "memory-limit" // hard limit changed, asked (Detail has the value)
)

// NodeMemory is one node's memory over the cell, with its peaks from the
// target's restart to the heal (the whole cell without a restart).
type NodeMemory struct {
	observe.NodeMemory

	PeakUsage   int64 `json:"peak_usage"`
	PeakUsageAt int64 `json:"peak_usage_at_ms"`
	PeakRSS     int64 `json:"peak_rss"`
	PeakRSSAt   int64 `json:"peak_rss_at_ms"`
	// Peaks as a ratio to the stream's bytes at the target's restart.
	PeakUsageRatio float64 `json:"peak_usage_ratio"`
	PeakRSSRatio   float64 `json:"peak_rss_ratio"`
}

// detectEvents are the events nobody asked for in the state samples. A node
// first seen down after a kill the harness asked for (recorded just before
// it was sent) did not die by itself: the kill is the node's last asked
// kill or start before the sample, and no sample since the kill saw it
// down. No window in time: a loaded machine once took 3.6 s to carry a
// kill out, and the node was still seen running 1.7 s after it was asked.
func detectEvents(states []observe.StateSample, asked []observe.Event) []observe.Event {
	return observe.DetectEvents(states, func(prev, cur observe.StateSample) bool {
		kill, start := int64(-1), int64(-1) // the last of each up to cur
		for _, e := range asked {
			if e.Node != cur.Node || e.TMs > cur.TMs {
				continue
			}
			switch e.Kind {
			case EvKill:
				kill = max(kill, e.TMs)
			case EvStart:
				start = max(start, e.TMs)
			}
		}
		if kill < 0 || start >= kill {
			return false // no kill, or started again since: a later death is its own
		}
		for _, s := range states {
			if s.Node == cur.Node && s.Err == "" && s.TMs >= kill && s.TMs <= prev.TMs && !s.Running {
				return false // already seen down since the kill: this is another death
			}
		}
		return true
	})
}

// addObserved puts the observer's series of the cell in dir into r, whose
// Events are the harness's own, and derives from them the events nobody
// asked for, the deaths, the target's lag and the peaks.
func addObserved(dir string, r *Result) error {
	rec, err := observe.Load(dir)
	if err != nil {
		return err
	}
	if rec == nil {
		return fmt.Errorf("%s: %s names the nodes' series in %s, which is missing", dir, ResultFile, r.Observed)
	}
	r.States, r.Health, r.Lag = rec.States(), rec.Health(), observe.LagSeries(rec, r.Target)
	asked := r.Events
	r.Events = append(detectEvents(r.States, asked), asked...)
	observe.SortEvents(r.Events)
	r.Deaths = observe.Summarize(r.Events, r.Options.CrashLoop)
	r.Memory = nil
	for _, m := range rec.Memory() {
		r.Memory = append(r.Memory, NodeMemory{NodeMemory: m})
	}
	r.derivePeaks()
	return nil
}

// derivePeaks fills every node's peaks and ratios in memoryWindow (the
// fill is the baseline, not the subject), and the target's peaks while
// catching up and after it was current.
func (r *Result) derivePeaks() {
	from, to := memoryWindow(r)
	size := float64(r.Stream.RestartBytes)
	for i := range r.Memory {
		m := &r.Memory[i]
		if from > 0 {
			m.PeakUsage, m.PeakUsageAt = m.Usage.PeakBetween(from, to)
			m.PeakRSS, m.PeakRSSAt = m.RSS.PeakBetween(from, to)
		} else {
			m.PeakUsage, m.PeakUsageAt = m.Usage.Peak()
			m.PeakRSS, m.PeakRSSAt = m.RSS.Peak()
		}
		if size > 0 {
			m.PeakUsageRatio = round3(float64(m.PeakUsage) / size)
			m.PeakRSSRatio = round3(float64(m.PeakRSS) / size)
		}
	}
	cu := &r.CatchUp
	t := r.TargetMemory()
	if t == nil || from <= 0 {
		return
	}
	mid := to
	if cu.CurrentAtMs > 0 {
		mid = cu.CurrentAtMs
	}
	through := mid // the sample at the moment it was current counts as during
	if through < math.MaxInt64 {
		through++
	}
	cu.PeakRSSDuring, _ = t.RSS.PeakBetween(from, through)
	cu.PeakUsageDuring, _ = t.Usage.PeakBetween(from, through)
	if cu.CurrentAtMs > 0 {
		cu.PeakRSSAfter, _ = t.RSS.PeakBetween(mid, to)
		cu.PeakUsageAfter, _ = t.Usage.PeakBetween(mid, to)
	}
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
