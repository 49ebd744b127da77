// Package run is the pipeline of one `chaos run`: for every cell of the
// matrix it starts a cluster, drives the workload while the nemesis breaks
// things, heals, reads back the stream, checks the history, and stores it
// all under store/<run-id>/.
package run

import (
	"fmt"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// Spec is everything a run was asked to do. It is saved as run.json.
type Spec struct {
	Workload        string           `json:"workload"`
	Runtime         string           `json:"runtime"` // auto, docker or local
	Store           string           `json:"store"`
	TimeLimit       time.Duration    `json:"time_limit"`
	DirectGet       []bool           `json:"direct_get"`
	ServerVersions  []string         `json:"server_versions"`
	Nemeses         []string         `json:"nemeses"` // each a comma-separated fault list
	NemesisInterval time.Duration    `json:"nemesis_interval"`
	Seed            uint64           `json:"seed"`
	RecoveryTimeout time.Duration    `json:"recovery_timeout"`
	CheckTimeout    time.Duration    `json:"check_timeout"`
	KeepData        bool             `json:"keep_data"`
	Cluster         cluster.Config   `json:"cluster"` // template; each cell fills version and dir
	KV              kvupdate.Options `json:"kv"`
	Command         string           `json:"command"` // the exact command that reruns this run
}

// Cell is one combination of the matrix.
type Cell struct {
	Name          string `json:"name"`
	DirectGet     bool   `json:"direct_get"`
	ServerVersion string `json:"server_version"`
	Nemesis       string `json:"nemesis"`
}

// Cells expands the matrix in a stable order: versions, then nemeses, then
// Direct Get (so on and off of one setting stand side by side).
func (s Spec) Cells() []Cell {
	var cells []Cell
	for _, v := range s.ServerVersions {
		for _, n := range s.Nemeses {
			for _, dg := range s.DirectGet {
				c := Cell{DirectGet: dg, ServerVersion: v, Nemesis: n}
				c.Name = c.name(len(s.ServerVersions) > 1, len(s.Nemeses) > 1)
				cells = append(cells, c)
			}
		}
	}
	return cells
}

func (c Cell) name(withVersion, withNemesis bool) string {
	parts := []string{}
	if withVersion {
		parts = append(parts, c.ServerVersion)
	}
	if withNemesis {
		parts = append(parts, strings.ReplaceAll(c.Nemesis, ",", "+"))
	}
	parts = append(parts, "direct-get-"+onOff(c.DirectGet))
	return strings.Join(parts, "_")
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Label is how a person reads the cell's name.
func (c Cell) Label() string {
	s := "Direct Get " + onOff(c.DirectGet)
	if c.Nemesis != "" && c.Nemesis != "none" {
		s += ", nemesis " + c.Nemesis
	}
	return s + ", nats-server " + c.ServerVersion
}

// ParseDirectGet reads --direct-get: on, off, both, or a comma list.
func ParseDirectGet(s string) ([]bool, error) {
	var out []bool
	for _, p := range strings.Split(s, ",") {
		switch strings.TrimSpace(p) {
		case "on", "true":
			out = append(out, true)
		case "off", "false":
			out = append(out, false)
		case "both":
			out = append(out, true, false)
		default:
			return nil, fmt.Errorf("--direct-get %q: want on, off or both", s)
		}
	}
	return out, nil
}
