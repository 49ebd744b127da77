package catchupview

import (
	"cmp"
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// Chart kinds of a catch-up cell, besides the memory of every node.
const (
	kindTarget = "Memory of the catching-up node"
	kindLag    = "Catch-up progress"
)

// catchupBands shade the target's absence and its catch-up on every chart
// of the cell, so a jump in memory or latency has its phase next to it.
func catchupBands(r *catchup.Result) []reports.Band {
	var out []reports.Band
	for _, b := range []struct {
		ph catchup.Phase
		reports.Band
	}{
		{catchup.PhaseDown, reports.Band{Label: cmp.Or(r.Target, "target") + " down", Color: "#cfcfcf", Legend: "target down (killed, wiped)"}},
		{catchup.PhaseCatchup, reports.Band{Label: "catching up", Color: "#b9d6ee", Legend: "catching up"}},
	} {
		if p := r.Phase(b.ph); p.Name != "" {
			b.From, b.To = float64(p.StartMs)/1000, float64(p.EndMs)/1000
			out = append(out, b.Band)
		}
	}
	return out
}

// catchupXMax is the end of the time axis in seconds: the last phase or sample.
func catchupXMax(r *catchup.Result) float64 {
	var end int64
	for _, p := range r.Phases {
		end = max(end, p.EndMs)
	}
	for _, l := range r.Lag {
		end = max(end, l.TMs)
	}
	for _, n := range r.Memory {
		for _, s := range []observe.Series{n.Usage, n.RSS} {
			if len(s.T) > 0 {
				end = max(end, s.T[len(s.T)-1])
			}
		}
	}
	if end <= 0 {
		return 1
	}
	return float64(end) / 1000
}

// catchupMarks are the OOM kills (red) and the target current (green).
func catchupMarks(r *catchup.Result) []reports.Mark {
	var ms []reports.Mark
	for _, e := range r.Events {
		if e.Kind == observe.EvOOMKill {
			ms = append(ms, reports.Mark{X: float64(e.TMs) / 1000, Label: "OOM " + e.Node, Color: reports.ColRed, Solid: true})
		}
	}
	return append(ms, currentMark(r)...)
}

func currentMark(r *catchup.Result) []reports.Mark {
	if r.CatchUp.CurrentAtMs <= 0 {
		return nil
	}
	return []reports.Mark{{X: float64(r.CatchUp.CurrentAtMs) / 1000, Label: "current", Color: reports.ColGreen, Solid: true}}
}

// unaskedMemory marks only what nobody asked for: the harness's own kill,
// wipe and start are the shaded bands.
func unaskedMemory(m *reports.Memory) *reports.Memory {
	out := *m
	out.Events = nil
	for _, e := range m.Events {
		if e.Kind == string(observe.EvRestart) || e.Kind == string(observe.EvDied) {
			out.Events = append(out.Events, e)
		}
	}
	return &out
}

// lagChart draws how far the target is behind the stream leader: messages
// (the whole stream while it is down or empty) and the leader's replica lag.
func lagChart(r *catchup.Result, bands []reports.Band, xmax float64) *reports.Chart {
	t := cmp.Or(r.Target, "the target")
	c := reports.NewTimeChart("How far "+t+" is behind the stream leader", "messages behind", xmax, bands)
	c.Kind = kindLag
	if len(r.Lag) == 0 {
		c.Empty = "no catch-up samples (no reading of the target's copy of the stream)"
		return c
	}
	var behind, raft plotter.XYs
	nan := math.NaN()
	for _, l := range r.Lag {
		x := float64(l.TMs) / 1000
		if l.Err != "" && l.LeaderLastSeq == 0 {
			behind, raft = append(behind, plotter.XY{X: x, Y: nan}), append(raft, plotter.XY{X: x, Y: nan})
			continue
		}
		behind = append(behind, plotter.XY{X: x, Y: float64(l.Behind)})
		raft = append(raft, plotter.XY{X: x, Y: float64(l.ReplicaLag)})
	}
	c.Line("messages "+t+" is behind", behind, reports.LineStyle(reports.ColBlue, 1.8, false))
	c.Line("replica lag the leader reports (raft entries)", raft, reports.LineStyle(reports.ColOrange, 1.2, true))
	c.Marks(catchupMarks(r))
	if cu := r.CatchUp; cu.RestartAtMs > 0 {
		note := fmt.Sprintf("%s restarted at %s", t, reports.FormatAt(cu.RestartAtMs))
		if cu.FirstSeenAtMs > 0 {
			note += fmt.Sprintf(", had the stream at %s", reports.FormatAt(cu.FirstSeenAtMs))
		}
		if cu.CurrentAtMs > 0 {
			note += fmt.Sprintf(", current at %s (%s after the restart)", reports.FormatAt(cu.CurrentAtMs), reports.FormatSecs(cu.Seconds))
		} else {
			note += fmt.Sprintf(", not current after %s (%s)", reports.FormatSecs(cu.Seconds), outcomeWords(cu.Outcome))
		}
		c.Notes = append(c.Notes, note+".")
	}
	return c
}

// targetMemoryChart draws the target's memory against its limit, scaled to
// its RSS, the limit and GOMEMLIMIT: the cgroup usage counts page cache, which
// fills up to any limit (or the stream's size), so it is clipped at the top.
func targetMemoryChart(m *reports.Memory, r *catchup.Result, goMemLimit int64, bands []reports.Band, xmax float64) *reports.Chart {
	ofTarget := func(ks []reports.OOMKill) (out []reports.OOMKill) {
		for _, k := range ks {
			if k.Node == r.Target {
				out = append(out, k)
			}
		}
		return out
	}
	t := &reports.Memory{OOMKills: ofTarget(m.OOMKills), Events: ofTarget(m.Events)}
	for _, n := range m.Nodes {
		if n.Node == r.Target {
			t.Nodes = append(t.Nodes, n)
		}
	}
	title := "Memory of the catching-up node " + r.Target
	if len(t.Nodes) == 0 {
		c := reports.NewTimeChart(title, "memory", xmax, bands)
		c.Kind, c.Empty = kindTarget, "no memory samples of "+cmp.Or(r.Target, "the target")
		return c
	}
	c := reports.MemoryChart(unaskedMemory(t), bands, xmax)
	c.Kind, c.Title = kindTarget, title
	c.Notes = nil // the OOM kills are in the chart of every node, and in the events
	if goMemLimit > 0 {
		c.HLine("GOMEMLIMIT "+reports.FormatSize(goMemLimit), float64(goMemLimit), reports.LineStyle(reports.ColGrey, 1.2, true))
	}
	c.Marks(currentMark(r))
	// The scale follows the target from its restart to the heal.
	from, to := int64(0), int64(math.MaxInt64)
	if r.CatchUp.RestartAtMs > 0 {
		from = r.CatchUp.RestartAtMs * 1e6
	}
	if h := r.Phase(catchup.PhaseHeal); h.Name != "" && h.StartMs > 0 {
		to = h.StartMs * 1e6
	}
	n := t.Nodes[0]
	var top, lim, usage int64
	for _, s := range n.RSS {
		if s.T >= from && s.T <= to {
			top = max(top, s.Bytes)
		}
	}
	for _, s := range n.Limit {
		lim = max(lim, s.Bytes)
	}
	top = max(top, lim, goMemLimit)
	for _, s := range n.Samples {
		usage = max(usage, s.Bytes)
	}
	if top > 0 && usage > top*6/5 {
		c.Plot.Y.Max = float64(top) * 6 / 5
		scale := "the RSS and the limit"
		if lim <= 0 && goMemLimit <= 0 {
			scale = "the RSS"
		}
		c.Notes = append(c.Notes, fmt.Sprintf("Scaled to %s from the restart to the heal: "+
			"the cgroup usage (page cache included) went up to %s, above the top of the scale.", scale, reports.FormatBytes(float64(usage))))
	}
	return c
}

// catchupMemory is the memory source of any cell holding a catchup.json.
func catchupMemory(cellDir string, _ record.CellResult) (*reports.Memory, error) {
	m, err := readMeasured(cellDir)
	if m == nil || err != nil {
		return nil, err
	}
	return memoryOfCatchup(*m), nil
}

// memoryOfCatchup is catchup.json's memory in the chart's shape; its times
// are ms since the cell began, the chart's ns.
func memoryOfCatchup(r catchup.Result) *reports.Memory {
	m := &reports.Memory{}
	samples := func(s observe.Series) []reports.MemSample {
		out := make([]reports.MemSample, 0, len(s.T))
		for i := range s.T {
			if i < len(s.V) {
				out = append(out, reports.MemSample{T: s.T[i] * 1e6, Bytes: s.V[i]})
			}
		}
		return out
	}
	for _, n := range r.Memory {
		m.Nodes = append(m.Nodes, reports.NodeMemory{Node: n.Node, Samples: samples(n.Usage), RSS: samples(n.RSS), Limit: samples(n.Limit)})
	}
	for _, e := range r.Events {
		ev := reports.OOMKill{Node: e.Node, T: e.TMs * 1e6, Kind: string(e.Kind), Detail: e.Detail}
		switch e.Kind {
		case observe.EvOOMKill:
			m.OOMKills = append(m.OOMKills, ev)
		case catchup.EvKill, catchup.EvWipe, catchup.EvStart, observe.EvRestart, observe.EvDied:
			m.Events = append(m.Events, ev)
		}
	}
	return m
}
