package catchup

import (
	"fmt"
	"io"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// Print writes the catch-up part of a cell's terminal summary: parameters,
// phase times, the catch-up, every node's peak memory, deaths, publishing
// and the target's memory curve (the pipeline prints the verdict and the
// checks around it).
func Print(w io.Writer, r Result) {
	o := r.Options
	fmt.Fprintf(w, "  %s\n", o.Describe())
	var parts []string
	var total float64
	for _, p := range r.Phases {
		parts = append(parts, fmt.Sprintf("%s %.1fs", p.Name, p.Seconds))
		total += p.Seconds
	}
	fmt.Fprintf(w, "  phases: %s (total %.1fs)\n", strings.Join(parts, ", "), total)
	st := r.Stream
	fmt.Fprintf(w, "  stream: filled %s (%d msgs) at %.0f MB/s; %s (%d msgs) at the restart; %s (%d msgs) at the end\n",
		bytesize.Bytes(st.FillBytes), st.FillMsgs, st.FillMBps, bytesize.Bytes(st.RestartBytes), st.RestartMsgs, bytesize.Bytes(st.FinalBytes), st.FinalMsgs)
	cu := r.CatchUp
	if cu.RestartAtMs > 0 {
		line := fmt.Sprintf("  catch-up of %s: %s after %.1fs (bound %s)", r.Target, cu.Outcome, cu.Seconds, cu.Bound)
		if cu.FirstSeenAtMs > 0 {
			line += fmt.Sprintf("; stream seen +%.1fs", float64(cu.FirstSeenAtMs-cu.RestartAtMs)/1000)
		}
		if cu.DataAtMs > 0 {
			line += fmt.Sprintf(", data caught up +%.1fs", float64(cu.DataAtMs-cu.RestartAtMs)/1000)
		}
		fmt.Fprintf(w, "%s; at most %d msgs behind\n", line, cu.MaxBehind)
		if cu.Detail != "" {
			fmt.Fprintf(w, "    %s\n", cu.Detail)
		}
	}
	if len(r.Memory) > 0 {
		fmt.Fprintf(w, "  peak memory from the restart to the heal (RSS; cgroup usage incl. page cache; x = ratio to the %s stream):\n", bytesize.Bytes(st.RestartBytes))
		for _, m := range r.Memory {
			role := ""
			if m.Node == r.Target {
				role = " (target)"
			}
			lim := ""
			if l, _ := m.Limit.Peak(); l > 0 {
				lim = fmt.Sprintf("; limit %s", bytesize.Bytes(l))
			}
			fmt.Fprintf(w, "    %-14s rss %9s (%.2fx) at %6s   usage %9s (%.2fx)%s\n", m.Node+role,
				bytesize.Bytes(m.PeakRSS), m.PeakRSSRatio, observe.Secs(m.PeakRSSAt), bytesize.Bytes(m.PeakUsage), m.PeakUsageRatio, lim)
		}
		if cu.CurrentAtMs > 0 {
			fmt.Fprintf(w, "    target rss while catching up %s, after it was current %s\n", bytesize.Bytes(cu.PeakRSSDuring), bytesize.Bytes(cu.PeakRSSAfter))
		}
	}
	if len(r.Deaths) == 0 {
		fmt.Fprintf(w, "  deaths: none (no OOM kill, no restart nobody asked for)\n")
	}
	for _, d := range r.Deaths {
		fmt.Fprintf(w, "  deaths: %s\n", d.Describe())
	}
	p := r.Publish
	fmt.Fprintf(w, "  publish: %d sent, %d acked (%s), %d failed, %d timed out (indeterminate), %d late acks\n",
		p.Sent, p.Acked, bytesize.Bytes(p.AckedB), p.Failed, p.TimedOut, p.LateAcks)
	for _, ph := range phaseOrder {
		if l, ok := p.Latency[ph]; ok && l.Count > 0 {
			errs := ""
			if e := p.Errors[ph]; len(e) > 0 {
				errs = "; errors " + errorTotals(map[Phase]map[string]int64{ph: e})
			}
			fmt.Fprintf(w, "    %-8s %8d acks %6.1f MB/s  p50 %7.1fms  p99 %7.1fms  max %7.1fms%s\n", ph, l.Count, p.AckedMBps[ph], l.P50Ms, l.P99Ms, l.MaxMs, errs)
		} else if e := p.Errors[ph]; len(e) > 0 {
			fmt.Fprintf(w, "    %-8s no acks; errors %s\n", ph, errorTotals(map[Phase]map[string]int64{ph: e}))
		}
	}
	if rd := r.Reads; rd.Gets > 0 {
		fmt.Fprintf(w, "  gets through %s: %d, %d ok (p99 %.1fms), %d not found (stale replica)", r.Target, rd.Gets, rd.OK, rd.Latency.P99Ms, rd.NotFound)
		if len(rd.Errors) > 0 {
			fmt.Fprintf(w, ", errors %s", errorTotals(map[Phase]map[string]int64{"": rd.Errors}))
		}
		fmt.Fprintln(w)
	}
	for _, l := range r.LogLines {
		fmt.Fprintf(w, "  log %s: %q x%d, first: %s\n", l.Node, l.Pattern, l.Count, observe.OneLine(l.First, 140))
	}
	if t := targetMemory(r); t != nil && len(t.RSS.T) > 1 {
		fmt.Fprintf(w, "  memory of %s over the run (# rss, : cgroup usage above it, ^ usage off the scale, = limit; K kill, R restart, C current, X OOM kill, H heal):\n", r.Target)
		fmt.Fprint(w, observe.TextChart(t.NodeMemory, chartMarks(r), 72, 10, "    "))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

func targetMemory(r Result) *NodeMemory {
	for i := range r.Memory {
		if r.Memory[i].Node == r.Target {
			return &r.Memory[i]
		}
	}
	return nil
}

// chartMarks are the moments drawn under the curve.
func chartMarks(r Result) map[int64]rune {
	m := map[int64]rune{}
	for _, e := range r.Events {
		if e.Node != r.Target {
			continue
		}
		switch e.Kind {
		case EvKill:
			m[e.TMs] = 'K'
		case observe.EvOOMKill:
			m[e.TMs] = 'X'
		}
	}
	if r.CatchUp.RestartAtMs > 0 {
		m[r.CatchUp.RestartAtMs] = 'R'
	}
	if r.CatchUp.CurrentAtMs > 0 {
		m[r.CatchUp.CurrentAtMs] = 'C'
	}
	if h := r.Phase(PhaseHeal); h.Name != "" {
		m[h.StartMs] = 'H'
	}
	return m
}
