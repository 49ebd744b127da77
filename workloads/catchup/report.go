package catchup

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Files a cell writes into its dir.
const (
	ResultFile  = "catchup.json" // the Result
	MemoryFile  = "memory.csv"   // t_ms,node,metric,bytes,limit_bytes; metric usage|rss
	LagFile     = "lag.csv"      // the target against the leader
	PublishFile = "publish.csv"  // one line a second
	EventsFile  = "events.jsonl" // kills, restarts, OOM kills, limits
	HealthFile  = "health.jsonl" // every /healthz answer
	StatesFile  = "states.jsonl" // every State sample
)

func (r *cell) writeFiles() error {
	if r.dir == "" {
		return nil
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	r.res.Files = []string{ResultFile, MemoryFile, LagFile, PublishFile, EventsFile, HealthFile, StatesFile}
	stored, err := relativeTo(r.dir, r.res)
	if err != nil {
		return err
	}
	writers := []struct {
		name string
		f    func(w *bufio.Writer) error
	}{
		{MemoryFile, func(w *bufio.Writer) error { return WriteMemoryCSV(w, r.res.Memory) }},
		{LagFile, func(w *bufio.Writer) error { return writeLagCSV(w, r.res.Lag) }},
		{PublishFile, func(w *bufio.Writer) error { return writePublishCSV(w, r.res.Publish.PerSecond) }},
		{EventsFile, func(w *bufio.Writer) error { return writeJSONL(w, r.res.Events) }},
		{HealthFile, func(w *bufio.Writer) error { return writeJSONL(w, r.res.Health) }},
		{StatesFile, func(w *bufio.Writer) error { return writeJSONL(w, r.res.States) }},
		{ResultFile, func(w *bufio.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(stored)
		}},
	}
	for _, wr := range writers {
		if err := writeFile(r.dirFile(wr.name), wr.f); err != nil {
			return fmt.Errorf("%s: %w", wr.name, err)
		}
	}
	return nil
}

// writeFile writes through a temp file, so a reader never sees half a file.
func writeFile(path string, f func(*bufio.Writer) error) error {
	tmp := path + ".tmp"
	fh, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(fh, 1<<16)
	if err := f(w); err != nil {
		fh.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return err
	}
	if err := fh.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func writeJSONL[T any](w io.Writer, items []T) error {
	enc := json.NewEncoder(w)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return nil
}

// WriteMemoryCSV writes memory.csv: one row per sample, sorted by time, each
// with the hard limit in force on its node then (0: none).
func WriteMemoryCSV(w io.Writer, mem []NodeMemory) error {
	type row struct {
		t          int64
		node, what string
		bytes, lim int64
	}
	var rows []row
	for _, m := range mem {
		for _, s := range []struct {
			what string
			s    Series
		}{{"usage", m.Usage}, {"rss", m.RSS}} {
			for i, t := range s.s.T {
				rows = append(rows, row{t, m.Node, s.what, s.s.V[i], m.Limit.At(t)})
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].t < rows[j].t })
	if _, err := fmt.Fprintln(w, "t_ms,node,metric,bytes,limit_bytes"); err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%d,%s,%s,%d,%d\n", r.t, r.node, r.what, r.bytes, r.lim); err != nil {
			return err
		}
	}
	return nil
}

func writeLagCSV(w io.Writer, lag []LagSample) error {
	fmt.Fprintln(w, "t_ms,target_has_stream,target_msgs,target_last_seq,target_healthy,leader,leader_last_seq,behind,replica_lag,replica_current,replica_offline")
	for _, l := range lag {
		if _, err := fmt.Fprintf(w, "%d,%v,%d,%d,%v,%s,%d,%d,%d,%v,%v\n", l.TMs, l.TargetHas, l.TargetMsgs, l.TargetLastSeq,
			l.TargetHealthy, l.Leader, l.LeaderLastSeq, l.Behind, l.ReplicaLag, l.ReplicaCurrent, l.ReplicaOffline); err != nil {
			return err
		}
	}
	return nil
}

func writePublishCSV(w io.Writer, secs []PublishSecond) error {
	fmt.Fprintln(w, "t_s,ok,errors,timeouts,p50_ms,p99_ms,max_ms")
	for _, s := range secs {
		if _, err := fmt.Fprintf(w, "%d,%d,%d,%d,%.3f,%.3f,%.3f\n", s.T, s.OK, s.Errors, s.Timeouts, s.P50Ms, s.P99Ms, s.MaxMs); err != nil {
			return err
		}
	}
	return nil
}

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
		Bytes(st.FillBytes), st.FillMsgs, st.FillMBps, Bytes(st.RestartBytes), st.RestartMsgs, Bytes(st.FinalBytes), st.FinalMsgs)
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
		fmt.Fprintf(w, "  peak memory from the restart to the heal (RSS; cgroup usage incl. page cache; x = ratio to the %s stream):\n", Bytes(st.RestartBytes))
		for _, m := range r.Memory {
			role := ""
			if m.Node == r.Target {
				role = " (target)"
			}
			lim := ""
			if l, _ := m.Limit.Peak(); l > 0 {
				lim = fmt.Sprintf("; limit %s", Bytes(l))
			}
			fmt.Fprintf(w, "    %-14s rss %9s (%.2fx) at %6s   usage %9s (%.2fx)%s\n", m.Node+role,
				Bytes(m.PeakRSS), m.PeakRSSRatio, ms(m.PeakRSSAt), Bytes(m.PeakUsage), m.PeakUsageRatio, lim)
		}
		if cu.CurrentAtMs > 0 {
			fmt.Fprintf(w, "    target rss while catching up %s, after it was current %s\n", Bytes(cu.PeakRSSDuring), Bytes(cu.PeakRSSAfter))
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
		p.Sent, p.Acked, Bytes(p.AckedB), p.Failed, p.TimedOut, p.LateAcks)
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
		fmt.Fprintf(w, "  log %s: %q x%d, first: %s\n", l.Node, l.Pattern, l.Count, oneLine(l.First, 140))
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
		case EvOOMKill:
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
	for _, s := range []Series{m.RSS, m.Usage} {
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
			label = Bytes(top * int64(height-y) / int64(height)).String()
		}
		fmt.Fprintf(&b, "%s%9s |%s\n", indent, label, string(row))
	}
	under := []rune(strings.Repeat(" ", width))
	for t, r := range marks {
		under[col(t)] = r
	}
	fmt.Fprintf(&b, "%s%9s +%s\n", indent, "", strings.Repeat("-", width))
	fmt.Fprintf(&b, "%s%9s  %s\n", indent, "", string(under))
	fmt.Fprintf(&b, "%s%9s  0s%s%s\n", indent, "", strings.Repeat(" ", max(0, width-2-len(ms(end)))), ms(end))
	return b.String()
}

// bin puts a series into width columns, each the peak of its samples. A
// column with no sample (columns can be narrower than the sampling period)
// carries the last value on if that sample is under a second old; a longer
// gap is a node that was down, and stays empty.
func bin(s Series, width int, end int64, col func(int64) int) []int64 {
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

// Save writes a Result's catchup.json into dir (for callers that change a
// Result after Run, e.g. to add log lines), its paths relative to dir.
func Save(dir string, r Result) error {
	stored, err := relativeTo(dir, r)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, ResultFile), func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(stored)
	})
}
