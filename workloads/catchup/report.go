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
		fmt.Fprint(w, Chart(*t, chartMarks(r), 72, 10, "    "))
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

// Chart draws a node's memory as text: one column per time slice with the
// slice's peak RSS as '#', cgroup usage above it as ':', the hard limit as
// '=', and the marks on a line below. The y axis is labelled on the left.
func Chart(m NodeMemory, marks map[int64]rune, width, height int, indent string) string {
	var end int64
	for _, s := range []observe.Series{m.RSS, m.Usage} {
		if n := len(s.T); n > 0 {
			end = max(end, s.T[n-1])
		}
	}
	for t := range marks {
		end = max(end, t)
	}
	if end <= 0 || width < 10 || height < 2 {
		return ""
	}
	col := func(t int64) int { return min(int(t*int64(width)/(end+1)), width-1) }
	rss, usage, limit := bin(m.RSS, width, end, col), bin(m.Usage, width, end, col), make([]int64, width)
	// The scale follows RSS and the limit. Cgroup usage counts page cache,
	// which on an unlimited node grows with the stream: it would flatten
	// everything else, so it is clipped at the top ('^' marks a clip).
	var top, topUsage int64
	for c := range width {
		limit[c] = m.Limit.At(int64(c+1) * (end + 1) / int64(width))
		top = max(top, rss[c], limit[c])
		topUsage = max(topUsage, usage[c])
	}
	if top == 0 {
		top = topUsage
	}
	if top == 0 {
		return ""
	}
	top = top + top/5
	rowOf := func(v int64) int { // 0 is the top row
		if v <= 0 {
			return height
		}
		return height - 1 - min(int(float64(v)*float64(height)/float64(top)), height-1)
	}
	grid := make([][]rune, height)
	for y := range grid {
		grid[y] = []rune(strings.Repeat(" ", width))
	}
	for c := range width {
		ry, uy := rowOf(rss[c]), rowOf(usage[c])
		for y := max(uy, 0); y < height; y++ {
			grid[y][c] = ':'
		}
		if usage[c] > top {
			grid[0][c] = '^'
		}
		for y := ry; y < height; y++ {
			grid[y][c] = '#'
		}
		if limit[c] > 0 {
			grid[rowOf(limit[c])][c] = '='
		}
	}
	var b strings.Builder
	for y, row := range grid {
		label := ""
		if y == 0 || y == height-1 || y == height/2 {
			label = bytesize.Bytes(top * int64(height-y) / int64(height)).String()
		}
		fmt.Fprintf(&b, "%s%9s |%s\n", indent, label, string(row))
	}
	under := []rune(strings.Repeat(" ", width))
	for t, r := range marks {
		under[col(t)] = r
	}
	fmt.Fprintf(&b, "%s%9s +%s\n", indent, "", strings.Repeat("-", width))
	fmt.Fprintf(&b, "%s%9s  %s\n", indent, "", string(under))
	fmt.Fprintf(&b, "%s%9s  0s%s%s\n", indent, "", strings.Repeat(" ", max(0, width-2-len(observe.Secs(end)))), observe.Secs(end))
	return b.String()
}

// bin puts a series into width columns, each the peak of its samples. A
// column with no sample (columns can be narrower than the sampling period)
// carries the last value on if that sample is under a second old; a longer
// gap is a node that was down, and stays empty.
func bin(s observe.Series, width int, end int64, col func(int64) int) []int64 {
	out := make([]int64, width)
	seen := make([]bool, width)
	last := make([]int64, width) // time of the column's last sample
	for i, t := range s.T {
		c := col(t)
		out[c] = max(out[c], s.V[i])
		seen[c], last[c] = true, t
	}
	for c := 1; c < width; c++ {
		colStart := int64(c) * (end + 1) / int64(width)
		if !seen[c] && seen[c-1] && colStart-last[c-1] < 1000 {
			out[c], seen[c], last[c] = out[c-1], true, last[c-1]
		}
	}
	return out
}
