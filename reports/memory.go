package reports

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"gonum.org/v1/plot/plotter"

	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Memory is a cell's memory use per node over time, with the limit and the
// OOM kills: what the pipeline's observer read of every node (package
// observe). Times are ns on the history's clock, as the fault windows'.
type Memory struct {
	LimitBytes int64        `json:"limit_bytes,omitempty"` // one limit for every node; 0: none known
	Nodes      []NodeMemory `json:"nodes"`
	OOMKills   []OOMKill    `json:"oom_kills,omitempty"`
	// Events are other things that happened to nodes (kill, wipe, start),
	// drawn as grey marks so a drop in memory has its cause next to it.
	Events []OOMKill `json:"events,omitempty"`
}

// NodeMemory is one node's samples, in time order.
type NodeMemory struct {
	Node    string      `json:"node"`
	Samples []MemSample `json:"samples"`         // what the limit counts (cgroup usage)
	RSS     []MemSample `json:"rss,omitempty"`   // resident memory, drawn dashed
	Limit   []MemSample `json:"limit,omitempty"` // this node's hard limit as it changed (0: none)
}

// MemSample is one reading.
type MemSample struct {
	T     int64 `json:"t_ns"`
	Bytes int64 `json:"bytes"`
}

// OOMKill is a node killed for running out of memory (in Events: any
// event, named by Kind).
type OOMKill struct {
	Node   string `json:"node"`
	T      int64  `json:"t_ns"`
	Kind   string `json:"kind,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// MemorySource reads a cell's memory series from its stored files; it
// returns nil, nil when the cell has none.
type MemorySource func(cellDir string, c record.CellResult) (*Memory, error)

var (
	memMu      sync.Mutex
	memSources = []MemorySource{nodesMemory}
)

// RegisterMemorySource adds a reader, tried before the default one, so a
// workload that stores memory in its own shape can feed the chart.
func RegisterMemorySource(src MemorySource) {
	memMu.Lock()
	defer memMu.Unlock()
	memSources = append([]MemorySource{src}, memSources...)
}

// LoadMemory asks every source in turn; the first that has data wins.
func LoadMemory(cellDir string, c record.CellResult) (*Memory, error) {
	memMu.Lock()
	srcs := append([]MemorySource(nil), memSources...)
	memMu.Unlock()
	var errs []error
	for _, src := range srcs {
		m, err := src(cellDir, c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if m != nil {
			return m, nil
		}
	}
	return nil, errors.Join(errs...)
}

// nodesMemory is the default source: the observer's readings of every
// node (observe.File), nil when the cell has none (it was stored before the
// pipeline observed the nodes).
func nodesMemory(cellDir string, _ record.CellResult) (*Memory, error) {
	rec, err := observe.Load(cellDir)
	if err != nil || rec == nil {
		return nil, err
	}
	return memoryOf(rec), nil
}

// memoryOf is what the chart draws of a record: each node's usage, RSS
// and limit, the OOM kills, and the restarts and deaths nobody asked for.
// A limit every node had alone, from its first reading on, is drawn once
// (LimitBytes).
func memoryOf(rec *observe.Record) *Memory {
	m := &Memory{}
	idx := map[string]int{}
	node := func(name string) *NodeMemory {
		i, ok := idx[name]
		if !ok {
			i = len(m.Nodes)
			idx[name] = i
			m.Nodes = append(m.Nodes, NodeMemory{Node: name})
		}
		return &m.Nodes[i]
	}
	for _, n := range rec.Nodes {
		node(n)
	}
	for _, s := range rec.Samples {
		r := MemSample{T: s.T, Bytes: s.Bytes}
		switch s.Kind {
		case observe.KindUsage:
			node(s.Node).Samples = append(node(s.Node).Samples, r)
		case observe.KindRSS:
			node(s.Node).RSS = append(node(s.Node).RSS, r)
		case observe.KindLimit:
			node(s.Node).Limit = append(node(s.Node).Limit, r)
		}
	}
	if lim := sharedLimit(m.Nodes); lim > 0 {
		m.LimitBytes = lim
		for i := range m.Nodes {
			m.Nodes[i].Limit = nil
		}
	}
	for _, e := range rec.Events() {
		k := OOMKill{Node: e.Node, T: e.TMs * 1e6, Kind: string(e.Kind), Detail: e.Detail}
		if e.Kind == observe.EvOOMKill {
			m.OOMKills = append(m.OOMKills, k)
		} else {
			m.Events = append(m.Events, k)
		}
	}
	return m
}

// sharedLimit is the limit every node had, unchanged, from its first
// reading on; 0 when they differ, changed, or there is none.
func sharedLimit(nodes []NodeMemory) int64 {
	var lim int64
	for _, n := range nodes {
		if len(n.Limit) != 1 || n.Limit[0].Bytes <= 0 || (lim != 0 && n.Limit[0].Bytes != lim) {
			return 0
		}
		lim = n.Limit[0].Bytes
	}
	return lim
}

// maxMemPoints bounds the points drawn per node; each kept point is the
// peak of the samples it stands for, so no spike towards the limit is lost.
const maxMemPoints = 400

// MemoryChart draws every node's memory over time: usage solid, RSS
// dashed, limits red dashed, OOM kills and node events as marks.
func MemoryChart(m *Memory, bands []Band, xmax float64) *Chart {
	for _, n := range m.Nodes {
		for _, ss := range [][]MemSample{n.Samples, n.RSS} {
			if len(ss) > 0 {
				xmax = math.Max(xmax, float64(ss[len(ss)-1].T)/1e9)
			}
		}
	}
	for _, k := range append(append([]OOMKill(nil), m.OOMKills...), m.Events...) {
		xmax = math.Max(xmax, float64(k.T)/1e9)
	}
	c := NewTimeChart("Memory per node", "memory", xmax, bands)
	c.Kind = KindMemory
	if len(m.Nodes) == 0 {
		c.Empty = "no memory samples"
		return c
	}
	c.Plot.Y.Tick.Marker = ByteTicks
	// A node down (killed, restarting) has no samples: its line breaks
	// there rather than slope across the gap.
	gap := math.Max(1, 3*xmax/maxMemPoints)
	for i, n := range m.Nodes {
		col := SeriesColor(i)
		c.Line(n.Node, breakGaps(peakPoints(n.Samples, xmax), gap), LineStyle(col, 1.6, false))
		if len(n.RSS) > 0 {
			c.Line(n.Node+" RSS", breakGaps(peakPoints(n.RSS, xmax), gap), LineStyle(col, 1, true))
		}
		if pts := limitSteps(n.Limit, xmax); len(pts) > 0 {
			c.Line(n.Node+" limit", pts, LineStyle(ColRed, 1.3, true))
		}
	}
	if m.LimitBytes > 0 {
		c.HLine("limit "+FormatBytes(float64(m.LimitBytes)), float64(m.LimitBytes), LineStyle(ColRed, 1.5, true))
	}
	var marks []Mark
	var events, kills []string
	for _, k := range m.Events {
		if m.followsOOMKill(k) {
			continue // the OOM kill's mark stands for it
		}
		s := fmt.Sprintf("%s %s at %.1fs", k.Node, k.Kind, float64(k.T)/1e9)
		if k.Detail != "" {
			s += ": " + k.Detail
		}
		events = append(events, s)
		marks = append(marks, Mark{X: float64(k.T) / 1e9, Label: k.Kind + " " + k.Node, Color: "#888888"})
	}
	for _, k := range m.OOMKills {
		s := fmt.Sprintf("%s OOM-killed at %.1fs", k.Node, float64(k.T)/1e9)
		if k.Detail != "" {
			s += ": " + k.Detail
		}
		kills = append(kills, s)
		marks = append(marks, Mark{X: float64(k.T) / 1e9, Label: "OOM " + k.Node, Color: ColRed, Solid: true})
	}
	c.Marks(marks)
	// What the marks stand for, in words.
	if len(kills) > 0 {
		c.Notes = append(c.Notes, "OOM kills (solid red): "+strings.Join(kills, "; ")+".")
	}
	if len(events) > 0 {
		c.Notes = append(c.Notes, "Node events (dashed grey): "+strings.Join(events, "; ")+".")
	}
	return c
}

// followsOOMKill says whether e is the restart or the exit that an OOM
// kill of its node brought, within 1.5 s after it: the runtime restarts a
// killed node at once, and one mark says both.
func (m *Memory) followsOOMKill(e OOMKill) bool {
	if e.Kind != string(observe.EvRestart) && e.Kind != string(observe.EvDied) {
		return false
	}
	for _, k := range m.OOMKills {
		if k.Node == e.Node && e.T >= k.T && e.T-k.T <= 1.5e9 {
			return true
		}
	}
	return false
}

// peakPoints keeps at most maxMemPoints points: the highest sample of each
// of maxMemPoints equal slices of [0, xmax].
func peakPoints(samples []MemSample, xmax float64) plotter.XYs {
	if len(samples) <= maxMemPoints || xmax <= 0 {
		out := make(plotter.XYs, len(samples))
		for i, s := range samples {
			out[i] = plotter.XY{X: float64(s.T) / 1e9, Y: float64(s.Bytes)}
		}
		return out
	}
	peak := make([]float64, maxMemPoints)
	at := make([]float64, maxMemPoints)
	for i := range peak {
		peak[i] = math.NaN()
	}
	for _, s := range samples {
		x := float64(s.T) / 1e9
		i := min(maxMemPoints-1, max(0, int(x/xmax*maxMemPoints)))
		if math.IsNaN(peak[i]) || float64(s.Bytes) > peak[i] {
			peak[i], at[i] = float64(s.Bytes), x
		}
	}
	var out plotter.XYs
	for i := range peak {
		if !math.IsNaN(peak[i]) {
			out = append(out, plotter.XY{X: at[i], Y: peak[i]})
		}
	}
	return out
}

// breakGaps puts a break (a NaN point) between points more than gap
// seconds apart.
func breakGaps(pts plotter.XYs, gap float64) plotter.XYs {
	out := make(plotter.XYs, 0, len(pts))
	for i, p := range pts {
		if i > 0 && p.X-pts[i-1].X > gap {
			out = append(out, plotter.XY{X: (p.X + pts[i-1].X) / 2, Y: math.NaN()})
		}
		out = append(out, p)
	}
	return out
}

// limitSteps draws a limit that changed over time as steps; a zero limit
// (none) is a gap. Nil when the node never had one.
func limitSteps(steps []MemSample, xmax float64) plotter.XYs {
	var out plotter.XYs
	any := false
	for i, s := range steps {
		v := float64(s.Bytes)
		if s.Bytes <= 0 {
			v = math.NaN()
		} else {
			any = true
		}
		end := xmax
		if i+1 < len(steps) {
			end = float64(steps[i+1].T) / 1e9
		}
		out = append(out, plotter.XY{X: float64(s.T) / 1e9, Y: v}, plotter.XY{X: end, Y: v})
		if i+1 < len(steps) {
			out = append(out, plotter.XY{X: end, Y: math.NaN()})
		}
	}
	if !any {
		return nil
	}
	return out
}
