package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

func TestPeakPointsKeepsSpikes(t *testing.T) {
	var s []MemSample
	for i := int64(0); i < 10000; i++ {
		b := int64(100)
		if i == 4321 {
			b = 999
		}
		s = append(s, MemSample{T: i * 1e6, Bytes: b})
	}
	pts := peakPoints(s, 10)
	if len(pts) > maxMemPoints {
		t.Errorf("%d points, bound %d", len(pts), maxMemPoints)
	}
	found := false
	for _, p := range pts {
		found = found || p.Y == 999
	}
	if !found {
		t.Error("the spike was smoothed away")
	}
}

// TestNodesMemory: the memory chart's series come from the observer's
// readings in ns; a limit every node had alone from the start is drawn
// once, limits that differ or change per node; OOM kills are marked apart
// from the other events nobody asked for; a cell without nodes.jsonl has
// no memory.
func TestNodesMemory(t *testing.T) {
	state := func(t int64, node string, run bool, oom, restarts int) observe.Sample {
		return observe.Sample{T: t, Asked: t - 1e6, Node: node, Kind: observe.KindState,
			State: &cluster.NodeState{Running: run, OOMKills: oom, Restarts: restarts}}
	}
	lines := []observe.Sample{{Kind: observe.KindStart, Nodes: []string{"n1", "n2"}, Every: 250e6},
		{T: 1, Node: "n1", Kind: observe.KindLimit, Bytes: 1 << 30}, {T: 1, Node: "n2", Kind: observe.KindLimit, Bytes: 1 << 30},
		{T: 250e6, Node: "n1", Kind: observe.KindUsage, Bytes: 100}, {T: 250e6, Node: "n2", Kind: observe.KindRSS, Bytes: 50},
		state(250e6, "n1", true, 0, 0), state(250e6, "n2", true, 0, 0),
		state(500e6, "n1", true, 1, 1), state(500e6, "n2", false, 0, 0),
		{T: 600e6, Kind: observe.KindStop}}
	write := func(lines []observe.Sample) string {
		dir := t.TempDir()
		var b strings.Builder
		for _, l := range lines {
			j, _ := json.Marshal(l)
			b.Write(append(j, '\n'))
		}
		if err := os.WriteFile(filepath.Join(dir, observe.File), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	m, err := nodesMemory(write(lines), record.CellResult{})
	if err != nil || m == nil {
		t.Fatalf("nodesMemory: %v, %v", m, err)
	}
	if m.LimitBytes != 1<<30 || len(m.Nodes) != 2 || m.Nodes[0].Limit != nil || m.Nodes[0].Samples[0] != (MemSample{T: 250e6, Bytes: 100}) ||
		m.Nodes[1].RSS[0] != (MemSample{T: 250e6, Bytes: 50}) {
		t.Errorf("memory %+v", m)
	}
	if len(m.OOMKills) != 1 || m.OOMKills[0].Node != "n1" || m.OOMKills[0].T != 500e6 ||
		len(m.Events) != 2 || m.Events[0].Kind != "restart" || m.Events[1].Kind != "died" || m.Events[1].Node != "n2" {
		t.Errorf("OOM kills %+v, events %+v", m.OOMKills, m.Events)
	}
	// The chart marks n1's OOM kill once (its restart is the kill's), and
	// n2's death, which no kill brought.
	notes := strings.Join(MemoryChart(m, nil, 1).Notes, " ")
	if !strings.Contains(notes, "n1 OOM-killed at 0.5s") || strings.Contains(notes, "n1 restart") || !strings.Contains(notes, "n2 died at 0.5s") {
		t.Errorf("chart notes: %s", notes)
	}
	// n2's limit differs: each node keeps its own.
	lines[2].Bytes = 2 << 30
	if m, _ := nodesMemory(write(lines), record.CellResult{}); m.LimitBytes != 0 || len(m.Nodes[1].Limit) != 1 {
		t.Errorf("limits that differ: %d, %+v", m.LimitBytes, m.Nodes[1].Limit)
	}
	if m, err := nodesMemory(t.TempDir(), record.CellResult{}); m != nil || err != nil {
		t.Errorf("a cell without nodes.jsonl: %+v, %v", m, err)
	}
}
