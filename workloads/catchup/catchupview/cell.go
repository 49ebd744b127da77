package catchupview

import (
	"cmp"
	"fmt"
	"path"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// catchupFiles are a catch-up cell's files, with what each holds.
var catchupFiles = []struct{ rel, text string }{
	{catchup.ResultFile, catchup.ResultFile + " (what the catch-up measured: its phases, milestones and the harness's own events)"},
	{observe.File, observe.File + " (every node over time: memory, the runtime's state, /healthz, its copy of the stream)"},
	{"history.jsonl", "history.jsonl (every publish and every get through the target, as an op)"},
	{"results.json", "results.json (this cell's verdict and checks)"},
}

// unobservedFiles are those of a cell stored before the pipeline observed
// the nodes: catchup.json held the series, and these files them again.
var unobservedFiles = []struct{ rel, text string }{
	{catchup.ResultFile, catchup.ResultFile + " (everything measured, the series and the checks)"},
	{"memory.csv", "memory.csv (memory per node: cgroup usage and RSS, with the limit)"},
	{"lag.csv", "lag.csv (the target against the stream leader)"},
	{catchup.PublishFile, catchup.PublishFile + " (publishes per second: acks, errors, latency)"},
	{"events.jsonl", "events.jsonl (kills, wipes, starts, limits, OOM kills, restarts)"},
	{"health.jsonl", "health.jsonl (every /healthz answer)"},
	{"states.jsonl", "states.jsonl (the runtime's view of each node)"},
	{"results.json", "results.json (this cell's verdict and checks)"},
}

// catchupCell fills the catch-up parts of a cell's section: its sentence,
// facts, charts, tables and files.
func catchupCell(r *reports.Run, c *reports.Cell, v *reports.CellSection, s CatchupSummary) {
	v.Sentence = s.Sentence()
	// The history's charts (publishes and gets per second, their latency
	// and errors) stay; the memory chart is drawn again with the phases.
	history := v.Charts[:0:0]
	for _, ch := range v.Charts {
		if ch.Kind != reports.KindMemory {
			history = append(history, ch)
		}
	}
	v.ChartNote, v.Recovery, v.Charts = "", "", history
	m := measuredOf(c)
	if c.Rel != "" {
		files := catchupFiles
		if m != nil && m.Observed == "" {
			files = unobservedFiles
		}
		v.Files = nil
		for _, f := range files {
			v.Files = append(v.Files, reports.FileLink(r.Dir, path.Join(c.Rel, f.rel), f.text))
		}
		// Cells stored before the history charted publishes wrote them per second too.
		if m != nil && m.Observed != "" && len(m.Publish.PerSecond) > 0 {
			v.Files = append(v.Files, reports.FileLink(r.Dir, path.Join(c.Rel, catchup.PublishFile), catchup.PublishFile+" (publishes per second: acks, errors, latency)"))
		}
	}
	if m == nil {
		why := cmp.Or(c.DataErr, "no "+catchup.ResultFile)
		v.ChartNote = "No catch-up charts: " + why + " (the cell did not get far enough to save its measurements)."
		return
	}
	cr := &m.Result
	v.Facts = catchupFacts(c, cr)
	xmax := catchupXMax(cr)
	bands := catchupBands(cr)
	if c.Memory != nil {
		mc := reports.MemoryChart(unaskedMemory(c.Memory), bands, xmax)
		mc.Marks(currentMark(cr))
		v.Charts = append(v.Charts, targetMemoryChart(c.Memory, cr, s.goMemLimit(), bands, xmax), mc)
	}
	v.Charts = append(v.Charts, lagChart(cr, bands, xmax))
	if len(history) == 0 && len(cr.Publish.PerSecond) > 0 {
		v.ChartNote = "Publishing second by second is in " + catchup.PublishFile + ": the cell was stored before its history recorded every publish."
	}
	if cr.Recovery != nil {
		v.Recovery = cr.Recovery.Detail
	}
	v.Extra = cellTables(cr)
}

func currentMark(r *catchup.Result) []reports.Mark {
	if r.CatchUp.CurrentAtMs <= 0 {
		return nil
	}
	return []reports.Mark{{X: float64(r.CatchUp.CurrentAtMs) / 1000, Label: "current", Color: reports.ColGreen, Solid: true}}
}

// catchupFacts are the cell's setup in a few lines.
func catchupFacts(c *reports.Cell, r *catchup.Result) []reports.Param {
	o := r.Options
	f := []reports.Param{{K: "Direct Get", V: reports.OnOff(c.DirectGet)}, {K: "nats-server", V: cmp.Or(r.ServerVersion, c.ServerVersion)}}
	if rt := cmp.Or(r.Runtime, c.Runtime); rt != "" {
		f = append(f, reports.Param{K: "runtime", V: rt})
	}
	f = append(f, reports.Param{K: "workload", V: o.Describe()})
	st := r.Stream
	if st.FillBytes > 0 {
		f = append(f, reports.Param{K: "stream", V: fmt.Sprintf("filled %s (%s msgs) at %.0f MB/s; %s (%s msgs) at the restart; %s (%s msgs) at the end",
			reports.FormatBytes(float64(st.FillBytes)), reports.FormatCount(int64(st.FillMsgs)), st.FillMBps, reports.FormatBytes(float64(st.RestartBytes)), reports.FormatCount(int64(st.RestartMsgs)),
			reports.FormatBytes(float64(st.FinalBytes)), reports.FormatCount(int64(st.FinalMsgs)))})
	}
	if r.Target != "" {
		t := fmt.Sprintf("%s, a %s when killed", r.Target, r.TargetRole)
		if r.LeaderAtKill != "" && r.LeaderAtKill != r.Target {
			t += "; stream leader " + r.LeaderAtKill
		}
		f = append(f, reports.Param{K: "target", V: t})
	}
	if len(r.Phases) > 0 {
		var parts []string
		total := 0.0
		for _, p := range r.Phases {
			parts = append(parts, fmt.Sprintf("%s %s", phaseWords(p.Name), reports.FormatSecs(p.Seconds)))
			total += p.Seconds
		}
		f = append(f, reports.Param{K: "phases", V: strings.Join(parts, ", ") + fmt.Sprintf(" (total %s)", reports.FormatSecs(total))})
	}
	if !r.StartedAt.IsZero() {
		f = append(f, reports.Param{K: "started", V: r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	return f
}

func phaseWords(p catchup.Phase) string { return cmp.Or(phaseNames[p], string(p)) }

var phaseNames = map[catchup.Phase]string{
	catchup.PhaseFill: "fill", catchup.PhaseDown: "target down", catchup.PhaseCatchup: "catch-up",
	catchup.PhaseSettle: "settle", catchup.PhaseHeal: "heal", catchup.PhaseVerify: "read back",
}

func eventWords(k observe.EventKind) string { return cmp.Or(eventNames[k], string(k)) }

var eventNames = map[observe.EventKind]string{
	catchup.EvKill: "killed (SIGKILL, by the harness)", catchup.EvWipe: "store wiped (by the harness)",
	catchup.EvStart: "started (by the harness)", catchup.EvLimit: "memory limit set",
	observe.EvOOMKill: "OOM-killed", observe.EvRestart: "restarted by the runtime", observe.EvDied: "died",
}
