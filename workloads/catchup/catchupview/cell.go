package catchupview

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// cellFile is one of a cell's files and what it holds.
type cellFile struct{ rel, what string }

var (
	resultsFile  = cellFile{"results.json", "this cell's verdict and checks"}
	publishFile  = cellFile{catchup.PublishFile, "publishes per second: acks, errors, latency"}
	catchupFiles = []cellFile{
		{catchup.ResultFile, "what the catch-up measured: its phases, milestones and the harness's own events"},
		{observe.File, "every node over time: memory, the runtime's state, /healthz, its copy of the stream"},
		{"history.jsonl", "every publish and every get through the target, as an op"},
		resultsFile,
	}
	// A cell stored before the pipeline observed the nodes kept its series in these.
	unobservedFiles = []cellFile{
		{catchup.ResultFile, "everything measured, the series and the checks"},
		{"memory.csv", "memory per node: cgroup usage and RSS, with the limit"},
		{"lag.csv", "the target against the stream leader"},
		publishFile,
		{"events.jsonl", "kills, wipes, starts, limits, OOM kills, restarts"},
		{"health.jsonl", "every /healthz answer"},
		{"states.jsonl", "the runtime's view of each node"},
		resultsFile,
	}
)

// catchupCell fills a cell's section: sentence, facts, charts, tables, files.
func catchupCell(r *reports.Run, c *reports.Cell, v *reports.CellSection, s CatchupSummary) {
	v.Sentence = s.Sentence()
	// The history's charts stay; the memory chart is drawn again with the phases.
	history := slices.DeleteFunc(slices.Clone(v.Charts), func(ch *reports.Chart) bool { return ch.Kind == reports.KindMemory })
	v.ChartNote, v.Recovery, v.Charts = "", "", history
	cr := measuredOf(c)
	if c.Rel != "" {
		files := catchupFiles
		switch {
		case cr != nil && cr.Observed == "":
			files = unobservedFiles
		case cr != nil && len(cr.Publish.PerSecond) > 0: // stored before the history charted publishes, so per second too
			files = slices.Concat(catchupFiles, []cellFile{publishFile})
		}
		v.Files = nil
		for _, f := range files {
			v.Files = append(v.Files, reports.FileLink(r.Dir, path.Join(c.Rel, f.rel), f.rel+" ("+f.what+")"))
		}
	}
	if cr == nil {
		why := cmp.Or(c.DataErr, "no "+catchup.ResultFile)
		v.ChartNote = "No catch-up charts: " + why + " (the cell did not get far enough to save its measurements)."
		return
	}
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
			parts = append(parts, fmt.Sprintf("%s %s", cmp.Or(phaseNames[p.Name], string(p.Name)), reports.FormatSecs(p.Seconds)))
			total += p.Seconds
		}
		f = append(f, reports.Param{K: "phases", V: strings.Join(parts, ", ") + fmt.Sprintf(" (total %s)", reports.FormatSecs(total))})
	}
	if !r.StartedAt.IsZero() {
		f = append(f, reports.Param{K: "started", V: r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	return f
}
