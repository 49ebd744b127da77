package record

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Spec is everything a run was asked to do. It is saved as run.json.
type Spec struct {
	Workload        string        `json:"workload"`
	Runtime         string        `json:"runtime"` // auto, docker or local
	Store           string        `json:"store"`
	TimeLimit       time.Duration `json:"time_limit"` // timed workloads only
	DirectGet       []bool        `json:"direct_get"`
	ServerVersions  []string      `json:"server_versions"`
	Nemeses         []string      `json:"nemeses"` // each a comma-separated fault list
	NemesisInterval time.Duration `json:"nemesis_interval"`
	Seed            uint64        `json:"seed"`
	// RecoveryTimeout bounds the wait after the final heal; 0 is the
	// workload's own bound (the pipeline's default unless it has one).
	RecoveryTimeout time.Duration  `json:"recovery_timeout"`
	CheckTimeout    time.Duration  `json:"check_timeout"`
	KeepData        bool           `json:"keep_data"`
	Cluster         cluster.Config `json:"cluster"` // template; each cell fills version and dir
	// Settings are the workload's settings, one per cell of the workload
	// axis, as the workload's flags expanded them (workloads.Marshal).
	Settings []json.RawMessage `json:"settings"`
	Command  string            `json:"command"` // the exact command that reruns this run
	// Expect names known anomalies (ParseExpect) that a nightly keeps as a
	// positive control: "direct-get-on=stale-reads".
	Expect []string `json:"expect,omitempty"`
	// Runs repeats every cell (0 and 1: once), each run with a seed derived
	// from Seed, or Seed itself with SameSeed. UntilFail stops at the first
	// run that finds an anomaly.
	Runs      int  `json:"runs,omitempty"`
	SameSeed  bool `json:"same_seed,omitempty"`
	UntilFail bool `json:"until_fail,omitempty"`
	// StopOnAnomaly ends a cell's workload as soon as the online checks find
	// an anomaly; the cell then heals, recovers and is checked as usual.
	StopOnAnomaly bool `json:"stop_on_anomaly,omitempty"`
	// Bisect runs the ServerVersions (a range, in order) only as far as it
	// takes to find the first release where the verdict changes.
	Bisect bool `json:"bisect,omitempty"`
	// Shard is the slice of the cells this run ran (--shard I/N), nil for
	// all of them; Cells is then that slice.
	Shard *Shard `json:"shard,omitempty"`
}

// Cell is one combination of the matrix.
type Cell struct {
	Name          string          `json:"name"`
	DirectGet     bool            `json:"direct_get"`
	ServerVersion string          `json:"server_version"`
	Nemesis       string          `json:"nemesis"`
	Settings      json.RawMessage `json:"settings"`
	// Tag is what sets this cell's settings apart from the others' ("" when
	// nothing does), e.g. "keys-10+clients-20".
	Tag string `json:"tag,omitempty"`
	// Repeat is which of --runs this is (1-based; 0 without --runs), and
	// Seed the seed it ran with.
	Repeat int    `json:"repeat,omitempty"`
	Seed   uint64 `json:"seed,omitempty"`
	// Base is the cell's name without its repeat: the runs of one cell
	// share it.
	Base string `json:"base,omitempty"`
}

// SeedOr is the cell's seed, runSeed (the run's) when the cell has none.
func (c Cell) SeedOr(runSeed uint64) uint64 {
	if c.Seed != 0 {
		return c.Seed
	}
	return runSeed
}

// RepeatSeed is the seed of repeat r (1-based) of a run seeded with seed:
// the first run uses seed itself, so --runs 1 changes nothing, and every
// later one a value mixed from both (splitmix64), printable as a --seed.
func RepeatSeed(seed uint64, r int) uint64 {
	if r <= 1 {
		return seed
	}
	z := seed + uint64(r)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return (z^(z>>31))%(1<<31) + 1
}

// Cells is the cells this run runs: AllCells, or its Shard's slice of
// them.
func (s Spec) Cells() []Cell {
	if s.Shard != nil {
		return s.Shard.Of(s.AllCells())
	}
	return s.AllCells()
}

// AllCells expands the matrix in a stable order: repeats, then versions,
// then nemeses, then workload settings, then Direct Get (so on and off of
// one setting stand side by side). Names carry only the axes that vary.
func (s Spec) AllCells() []Cell {
	var cells []Cell
	for r := 1; r <= max(s.Runs, 1); r++ {
		cells = append(cells, s.CellsOf(s.ServerVersions, r)...)
	}
	return cells
}

// CellsOf is the cells of repeat r for the versions given. A workload
// that registered no tags (a stored run of another build) still gives its
// cells; their names then carry no setting tags.
func (s Spec) CellsOf(versions []string, r int) []Cell {
	tags := make([]string, len(s.Settings))
	if all, ok := s.settingTags(); ok {
		tags = varyingTags(all)
	}
	var cells []Cell
	for _, v := range versions {
		for _, n := range s.Nemeses {
			for i := range s.Settings {
				for _, dg := range s.DirectGet {
					c := Cell{DirectGet: dg, ServerVersion: v, Nemesis: n, Settings: s.Settings[i], Tag: tags[i]}
					c.Name = c.name(len(s.ServerVersions) > 1, len(s.Nemeses) > 1)
					c.Base = c.Name
					if s.Runs > 1 {
						c.Repeat, c.Seed = r, s.Seed
						if !s.SameSeed {
							c.Seed = RepeatSeed(s.Seed, r)
						}
						c.Name = fmt.Sprintf("%s_run-%d", c.Name, r)
					}
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
	if c.Tag != "" {
		parts = append(parts, c.Tag)
	}
	parts = append(parts, "direct-get-"+OnOff(c.DirectGet))
	return strings.Join(parts, "_")
}

// OnOff writes a setting as the flags take it and cells are named: on or
// off.
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Label is how a person reads the cell's name.
func (c Cell) Label() string {
	s := "Direct Get " + OnOff(c.DirectGet)
	if c.Nemesis != "" && c.Nemesis != "none" {
		s += ", nemesis " + c.Nemesis
	}
	if c.Tag != "" {
		for _, part := range strings.Split(c.Tag, "+") {
			s += ", " + strings.Replace(part, "-", " ", 1)
		}
	}
	s += ", nats-server " + c.ServerVersion
	if c.Repeat > 0 {
		s += fmt.Sprintf(", run %d (seed %d)", c.Repeat, c.Seed)
	}
	return s
}
