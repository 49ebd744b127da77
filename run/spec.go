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
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// Spec is everything a run was asked to do. It is saved as run.json.
type Spec struct {
	Workload        string         `json:"workload"`
	Runtime         string         `json:"runtime"` // auto, docker or local
	Store           string         `json:"store"`
	TimeLimit       time.Duration  `json:"time_limit"`
	DirectGet       []bool         `json:"direct_get"`
	ServerVersions  []string       `json:"server_versions"`
	Nemeses         []string       `json:"nemeses"` // each a comma-separated fault list
	NemesisInterval time.Duration  `json:"nemesis_interval"`
	Seed            uint64         `json:"seed"`
	RecoveryTimeout time.Duration  `json:"recovery_timeout"`
	CheckTimeout    time.Duration  `json:"check_timeout"`
	KeepData        bool           `json:"keep_data"`
	Cluster         cluster.Config `json:"cluster"` // template; each cell fills version and dir
	// KV lists the kv-update settings; each is a cell (with every other axis).
	KV []kvupdate.Options `json:"kv,omitempty"`
	// Catchup is the catch-up workload's settings.
	Catchup *catchup.Options `json:"catchup,omitempty"`
	Command string           `json:"command"` // the exact command that reruns this run
	// Expect names known anomalies (reports.ParseExpect) that a nightly
	// keeps as a positive control: "direct-get-on=stale-reads".
	Expect []string `json:"expect,omitempty"`
}

// Cell is one combination of the matrix.
type Cell struct {
	Name          string           `json:"name"`
	DirectGet     bool             `json:"direct_get"`
	ServerVersion string           `json:"server_version"`
	Nemesis       string           `json:"nemesis"`
	Workload      kvupdate.Options `json:"workload"`
	workloadTag   string           // what sets this cell's workload apart, "" when nothing does
}

// Cells expands the matrix in a stable order: versions, then nemeses, then
// workload settings, then Direct Get (so on and off of one setting stand
// side by side). Names carry only the axes that vary.
func (s Spec) Cells() []Cell {
	kvs := s.KV
	if s.Workload == "catchup" || len(kvs) == 0 {
		kvs = []kvupdate.Options{{}} // catch-up cells vary by version and Direct Get only
	}
	tags := workloadTags(kvs)
	var cells []Cell
	for _, v := range s.ServerVersions {
		for _, n := range s.Nemeses {
			for i, kv := range kvs {
				for _, dg := range s.DirectGet {
					c := Cell{DirectGet: dg, ServerVersion: v, Nemesis: n, Workload: kv, workloadTag: tags[i]}
					c.Name = c.name(len(s.ServerVersions) > 1, len(s.Nemeses) > 1)
					cells = append(cells, c)
				}
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
	if c.workloadTag != "" {
		parts = append(parts, c.workloadTag)
	}
	parts = append(parts, "direct-get-"+onOff(c.DirectGet))
	return strings.Join(parts, "_")
}

// workloadTags names each workload setting by the fields that differ
// between them, e.g. "keys-10+clients-20".
func workloadTags(kvs []kvupdate.Options) []string {
	tags := make([]string, len(kvs))
	if len(kvs) < 2 {
		return tags
	}
	fields := []struct {
		name string
		val  func(kvupdate.Options) string
	}{
		{"keys", func(o kvupdate.Options) string { return fmt.Sprint(o.Keys) }},
		{"clients", func(o kvupdate.Options) string { return fmt.Sprint(o.Clients) }},
		{"pattern", func(o kvupdate.Options) string { return string(o.Pattern) }},
		{"replicas", func(o kvupdate.Options) string { return fmt.Sprint(o.Replicas) }},
		{"rate", func(o kvupdate.Options) string { return fmt.Sprint(o.Rate) }},
	}
	for _, f := range fields {
		first, varies := f.val(kvs[0]), false
		for _, o := range kvs[1:] {
			varies = varies || f.val(o) != first
		}
		if !varies {
			continue
		}
		for i, o := range kvs {
			if tags[i] != "" {
				tags[i] += "+"
			}
			tags[i] += f.name + "-" + f.val(o)
		}
	}
	return tags
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
	if c.workloadTag != "" {
		for _, part := range strings.Split(c.workloadTag, "+") {
			s += ", " + strings.Replace(part, "-", " ", 1)
		}
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
