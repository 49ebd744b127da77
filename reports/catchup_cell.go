package reports

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// cuView is what a catch-up cell's section shows beyond the common parts.
type cuView struct {
	Outcome    string // the catch-up in one line, with the server's detail
	Nodes      []cuNodeRow
	Events     []cuEventRow
	MoreEvents int
	Phases     []cuPhaseRow
	LogLines   []cuLogRow
	Notes      []string
}

type cuNodeRow struct {
	Node, Role, RSS, Usage, Limit, Deaths, DeathsClass string
}

type cuEventRow struct {
	At, Node, What, Detail, Class string
}

type cuPhaseRow struct {
	Phase, From, Took, Acks, MBps, P50, P99, Max, Errors string
}

type cuLogRow struct {
	Node, Pattern, Count, First, Last string
}

// maxEvents bounds the events listed in a cell; a crash loop makes many.
const maxEvents = 40

// catchupFiles are a catch-up cell's own files, with what each holds.
var catchupFiles = []struct{ rel, text string }{
	{catchup.ResultFile, catchup.ResultFile + " (everything measured, the series and the checks)"},
	{catchup.MemoryFile, catchup.MemoryFile + " (memory per node: cgroup usage and RSS, with the limit)"},
	{catchup.LagFile, catchup.LagFile + " (the target against the stream leader)"},
	{catchup.PublishFile, catchup.PublishFile + " (publishes per second: acks, errors, latency)"},
	{catchup.EventsFile, catchup.EventsFile + " (kills, wipes, starts, limits, OOM kills, restarts)"},
	{catchup.HealthFile, catchup.HealthFile + " (every /healthz answer)"},
	{catchup.StatesFile, catchup.StatesFile + " (the runtime's view of each node)"},
	{"results.json", "results.json (this cell's verdict and checks)"},
}

// catchupCell fills the catch-up parts of a cell's section: its sentence,
// facts, charts, tables and files.
func catchupCell(r *Run, c *Cell, v *cellView, s CatchupSummary) {
	v.Sentence = s.Sentence()
	v.ChartNote = ""
	cr := c.Catchup
	if c.Rel != "" {
		v.Files = nil
		for _, f := range catchupFiles {
			v.Files = append(v.Files, FileLink(r.Dir, path.Join(c.Rel, f.rel), f.text))
		}
	}
	if cr == nil {
		why := "no " + catchup.ResultFile
		if c.CatchupErr != "" {
			why = c.CatchupErr
		}
		v.ChartNote = "No charts: " + why + " (the cell did not get far enough to save its measurements)."
		v.charts = map[string]*Chart{}
		return
	}
	v.Facts = catchupFacts(c, cr)
	xmax := catchupXMax(cr)
	bands := catchupBands(cr)
	v.charts = map[string]*Chart{}
	if c.Memory != nil {
		v.charts[chTarget] = targetMemoryChart(c.Memory, cr, s.goMemLimit(), bands, xmax)
		mc := MemoryChart(unaskedMemory(c.Memory), bands, xmax)
		mc.Marks(currentMark(cr))
		v.charts[chMemory] = mc
	}
	v.charts[chLag] = lagChart(cr, bands, xmax)
	v.charts[chPublish] = publishChart(cr, bands, xmax)
	if cr.Recovery != nil {
		v.Recovery = cr.Recovery.Detail
	}
	cu := &cuView{Notes: cr.Notes}
	if o := cr.CatchUp; o.RestartAtMs > 0 {
		cu.Outcome = fmt.Sprintf("%s restarted at %s: %s", cr.Target, fmtAt(o.RestartAtMs), o.Outcome)
		if o.Outcome == catchup.OutcomeCurrent {
			cu.Outcome = fmt.Sprintf("%s restarted at %s and was current %s later", cr.Target, fmtAt(o.RestartAtMs), fmtSecs(o.Seconds))
		} else if o.Outcome != "" {
			cu.Outcome = fmt.Sprintf("%s restarted at %s and was not current after %s (%s)", cr.Target, fmtAt(o.RestartAtMs), fmtSecs(o.Seconds), outcomeWords(o.Outcome))
		}
		if o.Detail != "" {
			cu.Outcome += ": " + o.Detail
		}
		cu.Outcome += "."
	}
	for _, n := range cr.Memory {
		row := cuNodeRow{Node: n.Node, Role: "served the catch-up", RSS: peakAt(n.PeakRSS, n.PeakRSSRatio, n.PeakRSSAt),
			Usage: peakAt(n.PeakUsage, n.PeakUsageRatio, n.PeakUsageAt), Limit: "none", Deaths: "none", DeathsClass: "ok"}
		switch {
		case n.Node == cr.Target:
			row.Role = "target: killed, wiped, restarted"
		case n.Node == cr.LeaderAtKill:
			row.Role = "stream leader at the kill"
		}
		if l, _ := n.Limit.Peak(); l > 0 {
			row.Limit = fmtSize(l)
		}
		if d := s.deaths(n.Node); d.OOMKills > 0 || d.Deaths > 0 || d.Restarts > 0 {
			row.Deaths, row.DeathsClass = d.Describe(), "bad"
			row.Deaths = strings.TrimPrefix(row.Deaths, n.Node+": ")
		}
		cu.Nodes = append(cu.Nodes, row)
	}
	for i, e := range cr.Events {
		if i == maxEvents {
			cu.MoreEvents = len(cr.Events) - i
			break
		}
		row := cuEventRow{At: fmtAt(e.TMs), Node: e.Node, What: eventWords(e.Kind), Detail: e.Detail}
		if e.Kind == catchup.EvLimit && (e.Detail == "" || e.Detail == "none" || e.Detail == "0B") {
			row.What, row.Detail = "memory limit lifted", ""
		}
		if !e.Asked() {
			row.Class = "bad"
		}
		cu.Events = append(cu.Events, row)
	}
	for _, p := range cr.Phases {
		row := cuPhaseRow{Phase: phaseWords(p.Name), From: fmtAt(p.StartMs), Took: fmtSecs(p.Seconds)}
		if l, ok := cr.Publish.Latency[p.Name]; ok && l.Count > 0 {
			row.Acks, row.P50, row.P99, row.Max = FormatCount(l.Count), FormatMs(l.P50Ms), FormatMs(l.P99Ms), FormatMs(l.MaxMs)
			if mb, ok := cr.Publish.AckedMBps[p.Name]; ok {
				row.MBps = fmt.Sprintf("%.1f", mb)
			}
		}
		if e := cr.Publish.Errors[p.Name]; len(e) > 0 {
			row.Errors = strings.TrimPrefix(publishErrors(catchup.PublishSummary{Errors: map[catchup.Phase]map[string]int64{p.Name: e}}), string(p.Name)+": ")
		}
		cu.Phases = append(cu.Phases, row)
	}
	lines := append([]catchup.LogMatch(nil), cr.LogLines...)
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].Node < lines[j].Node })
	for _, l := range lines {
		cu.LogLines = append(cu.LogLines, cuLogRow{Node: l.Node, Pattern: l.Pattern, Count: FormatCount(l.Count), First: l.First, Last: l.Last})
	}
	v.CU = cu
}

func currentMark(r *catchup.Result) []Mark {
	if r.CatchUp.CurrentAtMs <= 0 {
		return nil
	}
	return []Mark{{X: float64(r.CatchUp.CurrentAtMs) / 1000, Label: "current", Color: ColGreen, Solid: true}}
}

func peakAt(v int64, ratio float64, at int64) string {
	if v <= 0 {
		return "–"
	}
	return peakShort(v, ratio) + " at " + fmtAt(at)
}

// catchupFacts are the cell's setup in a few lines.
func catchupFacts(c *Cell, r *catchup.Result) []Param {
	o := r.Options
	f := []Param{{"Direct Get", OnOff(c.DirectGet)}, {"nats-server", orDefault(r.ServerVersion, c.ServerVersion)}}
	if rt := orDefault(r.Runtime, c.Runtime); rt != "" {
		f = append(f, Param{"runtime", rt})
	}
	f = append(f, Param{"workload", o.Describe()})
	st := r.Stream
	if st.FillBytes > 0 {
		f = append(f, Param{"stream", fmt.Sprintf("filled %s (%s msgs) at %.0f MB/s; %s (%s msgs) at the restart; %s (%s msgs) at the end",
			FormatBytes(float64(st.FillBytes)), FormatCount(int64(st.FillMsgs)), st.FillMBps, FormatBytes(float64(st.RestartBytes)), FormatCount(int64(st.RestartMsgs)),
			FormatBytes(float64(st.FinalBytes)), FormatCount(int64(st.FinalMsgs)))})
	}
	if r.Target != "" {
		t := fmt.Sprintf("%s, a %s when killed", r.Target, r.TargetRole)
		if r.LeaderAtKill != "" && r.LeaderAtKill != r.Target {
			t += "; stream leader " + r.LeaderAtKill
		}
		f = append(f, Param{"target", t})
	}
	if len(r.Phases) > 0 {
		var parts []string
		total := 0.0
		for _, p := range r.Phases {
			parts = append(parts, fmt.Sprintf("%s %s", phaseWords(p.Name), fmtSecs(p.Seconds)))
			total += p.Seconds
		}
		f = append(f, Param{"phases", strings.Join(parts, ", ") + fmt.Sprintf(" (total %s)", fmtSecs(total))})
	}
	if !r.StartedAt.IsZero() {
		f = append(f, Param{"started", r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	return f
}

func phaseWords(p catchup.Phase) string {
	switch p {
	case catchup.PhaseFill:
		return "fill"
	case catchup.PhaseDown:
		return "target down"
	case catchup.PhaseCatchup:
		return "catch-up"
	case catchup.PhaseSettle:
		return "settle"
	case catchup.PhaseHeal:
		return "heal"
	case catchup.PhaseVerify:
		return "read back"
	}
	return string(p)
}

func eventWords(k catchup.EventKind) string {
	switch k {
	case catchup.EvKill:
		return "killed (SIGKILL, by the harness)"
	case catchup.EvWipe:
		return "store wiped (by the harness)"
	case catchup.EvStart:
		return "started (by the harness)"
	case catchup.EvLimit:
		return "memory limit set"
	case catchup.EvOOMKill:
		return "OOM-killed"
	case catchup.EvRestart:
		return "restarted by the runtime"
	case catchup.EvDied:
		return "died"
	}
	return string(k)
}
