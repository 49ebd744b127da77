package catchup

import (
	"fmt"
	"io"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// Print writes the catch-up part of a cell's terminal summary; the
// pipeline prints the verdict and the checks around it.
func Print(w io.Writer, r Result) {
	fmt.Fprintf(w, "  %s\n", r.Options.Describe())
	var parts []string
	for _, p := range r.Phases {
		parts = append(parts, fmt.Sprintf("%s %.1fs", p.Name, p.Seconds))
	}
	st := r.Stream
	fmt.Fprintf(w, "  phases: %s; stream %s (%d msgs) at the restart, %s (%d msgs) at the end\n",
		strings.Join(parts, ", "), bytesize.Bytes(st.RestartBytes), st.RestartMsgs, bytesize.Bytes(st.FinalBytes), st.FinalMsgs)
	if cu := r.CatchUp; cu.RestartAtMs > 0 {
		fmt.Fprintf(w, "  catch-up of %s: %s after %.1fs (bound %s), at most %d msgs behind", r.Target, cu.Outcome, cu.Seconds, cu.Bound, cu.MaxBehind)
		if cu.Detail != "" {
			fmt.Fprintf(w, ": %s", cu.Detail)
		}
		fmt.Fprintln(w)
	}
	if t := r.TargetMemory(); t != nil {
		fmt.Fprintf(w, "  %s peak from the restart to the heal: rss %s (%.2fx the stream) at %s, cgroup usage %s\n",
			r.Target, bytesize.Bytes(t.PeakRSS), t.PeakRSSRatio, observe.Secs(t.PeakRSSAt), bytesize.Bytes(t.PeakUsage))
	}
	if len(r.Deaths) == 0 {
		fmt.Fprintf(w, "  deaths: none (no OOM kill, no restart nobody asked for)\n")
	}
	for _, d := range r.Deaths {
		fmt.Fprintf(w, "  deaths: %s\n", d.Describe())
	}
	p := r.Publish
	fmt.Fprintf(w, "  publish: %d sent, %d acked (%s), %d failed, %d timed out (indeterminate)", p.Sent, p.Acked, bytesize.Bytes(p.AckedB), p.Failed, p.TimedOut)
	if l, ok := p.Latency[PhaseCatchup]; ok && l.Count > 0 {
		fmt.Fprintf(w, "; while catching up p99 %.1fms, max %.1fms", l.P99Ms, l.MaxMs)
	}
	if len(p.Errors) > 0 {
		fmt.Fprintf(w, "; errors %s", errorTotals(p.Errors))
	}
	fmt.Fprintln(w)
	for _, l := range r.LogLines {
		fmt.Fprintf(w, "  log %s: %q x%d\n", l.Node, l.Pattern, l.Count)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// TargetMemory is the target's memory, nil when it has none.
func (r *Result) TargetMemory() *NodeMemory {
	for i := range r.Memory {
		if r.Memory[i].Node == r.Target {
			return &r.Memory[i]
		}
	}
	return nil
}
