package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

func init() { memSources = append(memSources, catchupMemory) }

// catchupMemory reads the catch-up workload's catchup.json: per node the
// memory the limit counts (solid), the resident memory (dashed) and the
// hard limit as it changed; OOM kills in red; the harness's own kills,
// wipes and starts in grey. Its times are ms since the cell began.
func catchupMemory(cellDir string, _ run.CellResult) (*Memory, error) {
	b, err := os.ReadFile(filepath.Join(cellDir, catchup.ResultFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r catchup.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(cellDir, catchup.ResultFile), err)
	}
	return memoryOfCatchup(r), nil
}

func memoryOfCatchup(r catchup.Result) *Memory {
	m := &Memory{}
	samples := func(s catchup.Series) []MemSample {
		out := make([]MemSample, 0, len(s.T))
		for i := range s.T {
			if i < len(s.V) {
				out = append(out, MemSample{T: s.T[i] * 1e6, Bytes: s.V[i]})
			}
		}
		return out
	}
	for _, n := range r.Memory {
		m.Nodes = append(m.Nodes, NodeMemory{Node: n.Node, Samples: samples(n.Usage), RSS: samples(n.RSS), Limit: samples(n.Limit)})
	}
	for _, e := range r.Events {
		ev := OOMKill{Node: e.Node, T: e.TMs * 1e6, Kind: string(e.Kind), Detail: e.Detail}
		switch e.Kind {
		case catchup.EvOOMKill:
			m.OOMKills = append(m.OOMKills, ev)
		case catchup.EvKill, catchup.EvWipe, catchup.EvStart, catchup.EvRestart, catchup.EvDied:
			m.Events = append(m.Events, ev)
		}
	}
	return m
}
