package hunt

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
)

// Mode says which schedules a campaign draws.
type Mode string

// The modes: clock-only schedules (faults by the clock, as `chaos run`
// draws them), or aimed ones (the same, plus faults triggered by events,
// aimed at roles).
const (
	Clock Mode = "clock"
	Aimed Mode = "aimed"
)

// Plan is one run of a campaign: a schedule and the workload's knobs, as
// `chaos run` flags.
type Plan struct {
	Nemesis  string        `json:"nemesis"`
	Interval time.Duration `json:"interval"`
	Version  string        `json:"version"`
	// Knobs are kv-update flags: keys, clients, pattern, history, mix.
	Knobs map[string]string `json:"knobs"`
	// Features are what the plan was drawn from (fault:kill,
	// event:leader-change, knob:history=all ...): found classes lower
	// their weight, so the campaign moves on.
	Features []string `json:"features"`
}

// Args are the plan's `chaos run` flags.
func (p Plan) Args() []string {
	args := []string{"--nemesis", p.Nemesis, "--nemesis-interval", p.Interval.String(), "--server-version", p.Version}
	for _, k := range slices.Sorted(maps.Keys(p.Knobs)) {
		args = append(args, "--"+k, p.Knobs[k])
	}
	return args
}

// menu is what plans are drawn from.
type menu struct {
	faults   []string // single faults the runtime can do
	aimable  []string // of those, the ones a role can aim
	events   []string // triggers
	roles    []string
	delays   []time.Duration
	interval []time.Duration
	knobs    map[string][]string
}

// newMenu is the grammar for kv-update on a runtime that supports the
// faults supported keeps.
func newMenu(supported func(fault string) bool) menu {
	all := []string{"partition-one", "partition-leader", "partition-halves", "kill", "restart", "pause", "wipe",
		"stepdown", "kill-majority", "kill-all", "restart-all", "pause-kill", "power-loss", "member-replace",
		"loss", "bandwidth"}
	m := menu{
		events: []string{"leader-change", "catchup-start", "catchup-end", "snapshot", "restart", "meta-leader-change",
			"log:/Catchup for stream/", "log:/resetting first sequence/", "log:/Resetting stream/"},
		roles:    []string{"", "event-node", "new-leader", "old-leader", "catching-up", "leader"},
		delays:   []time.Duration{0, 100 * time.Millisecond, 500 * time.Millisecond, 2 * time.Second},
		interval: []time.Duration{2 * time.Second, 3 * time.Second, 5 * time.Second},
		knobs: map[string][]string{
			"keys":    {"1", "3", "10", "100"},
			"clients": {"2", "5", "10"},
			"pattern": {"single-writer", "contended"},
			"history": {"1", "all"},
			"mix":     {"update:100", "update:80,delete:8,purge:4,create:8"},
		},
	}
	for _, f := range all {
		if supported(f) {
			m.faults = append(m.faults, f)
			if slices.Contains(nemesis.AimableFaults(), f) {
				m.aimable = append(m.aimable, f)
			}
		}
	}
	return m
}

// weights lowers the chance of features that already found a class.
type weights map[string]float64

func (w weights) of(feature string) float64 {
	if v, ok := w[feature]; ok {
		return v
	}
	return 1
}

// draw picks one of options by weight; feature names each for weights.
func draw(r *rand.Rand, w weights, prefix string, options []string) string {
	total := 0.0
	for _, o := range options {
		total += w.of(prefix + o)
	}
	x := r.Float64() * total
	for _, o := range options {
		if x -= w.of(prefix + o); x < 0 {
			return o
		}
	}
	return options[len(options)-1]
}

// plan draws one plan. A clock plan is one or two clock faults, each
// single or two together; an aimed plan adds one or two triggered faults,
// aimed at a role or not, after a delay or not.
func (m menu) plan(r *rand.Rand, w weights, mode Mode, version string) Plan {
	p := Plan{Version: version, Knobs: map[string]string{}}
	feat := func(f string) { p.Features = append(p.Features, f) }
	var items []string
	for range 1 + r.IntN(2) {
		f := draw(r, w, "fault:", m.faults)
		feat("fault:" + f)
		if r.IntN(3) == 0 {
			g := draw(r, w, "fault:", m.faults)
			if g != f && !tooMuch(f, g) {
				feat("fault:" + g)
				f += "+" + g
			}
		}
		if !slices.Contains(items, f) {
			items = append(items, f)
		}
	}
	if mode == Aimed && len(m.aimable) > 0 {
		for range 1 + r.IntN(2) {
			f := draw(r, w, "fault:", m.aimable)
			role := draw(r, w, "role:", m.roles)
			ev := draw(r, w, "event:", m.events)
			d := m.delays[r.IntN(len(m.delays))]
			feat("fault:" + f)
			feat("event:" + ev)
			if role != "" {
				feat("role:" + role)
				f += ":" + role
			}
			item := f + "@" + ev
			if d > 0 {
				item += "+" + d.String()
			}
			if !slices.ContainsFunc(items, func(s string) bool { return strings.SplitN(s, "@", 2)[0] == strings.SplitN(item, "@", 2)[0] }) {
				items = append(items, item)
			}
		}
	}
	p.Nemesis = strings.Join(items, ",")
	p.Interval = m.interval[r.IntN(len(m.interval))]
	for _, k := range slices.Sorted(maps.Keys(m.knobs)) {
		v := draw(r, w, "knob:"+k+"=", m.knobs[k])
		p.Knobs[k] = v
		feat("knob:" + k + "=" + v)
	}
	if c, k := p.Knobs["clients"], p.Knobs["keys"]; p.Knobs["pattern"] == "single-writer" && atoi(c) > atoi(k) {
		p.Knobs["clients"] = k // single-writer needs a key per client
	}
	return p
}

// tooMuch says whether two faults together leave nothing to observe (two
// that each take the whole cluster or a majority down).
func tooMuch(a, b string) bool {
	big := []string{"kill-majority", "kill-all", "restart-all", "partition-halves"}
	return slices.Contains(big, a) && slices.Contains(big, b)
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}
