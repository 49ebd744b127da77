package observe

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// The runtime's State of each node is sampled a few times a second. Deaths
// nobody asked for are read from its counters, not from catching a node
// down: Docker restarts an OOM-killed node within a fraction of a second,
// between two samples, but OOMKills and Restarts remember it.

// StateSample is one reading of a node's State, answered at TMs and asked
// for at AskedMs (ms since the history's zero).
type StateSample struct {
	TMs     int64  `json:"t_ms"`
	AskedMs int64  `json:"asked_ms,omitempty"`
	Node    string `json:"node"`
	cluster.NodeState
	Err string `json:"error,omitempty"`
}

// EventKind names what happened to a node.
type EventKind string

// What the runtime saw of a node that nobody asked for. A workload names
// the kinds of what it did itself (the catch-up workload's kill, wipe).
const (
	EvOOMKill EventKind = "oom-kill" // the kernel killed the node at its memory limit
	EvRestart EventKind = "restart"  // the runtime restarted a node that died by itself
	EvDied    EventKind = "died"     // seen down with nobody having asked
)

// Event is one thing that happened to a node, seen at TMs ms since the
// history's zero. FromMs, when set, is the earliest it can have happened:
// when the reading before the one that saw it was asked for.
type Event struct {
	TMs    int64     `json:"t_ms"`
	FromMs int64     `json:"from_ms,omitempty"`
	Node   string    `json:"node"`
	Kind   EventKind `json:"kind"`
	Detail string    `json:"detail,omitempty"`
}

// Unasked says whether the event is one nobody asked for (an OOM kill, a
// restart by the runtime, a death).
func (e Event) Unasked() bool {
	switch e.Kind {
	case EvOOMKill, EvRestart, EvDied:
		return true
	}
	return false
}

// DetectEvents turns state samples into the events nobody asked for: one
// oom-kill per increase of OOMKills, one restart per increase of Restarts,
// and a died event when a node is seen down after it was seen running. The
// counters start at zero with the cluster, so increases already in a
// node's first sample count. asked, which may be nil, says that the
// harness took the node down between two samples: that is no death.
// Samples may be in any order; errors are skipped.
func DetectEvents(samples []StateSample, asked func(prev, cur StateSample) bool) []Event {
	byNode := map[string][]StateSample{}
	for _, s := range samples {
		if s.Err == "" {
			byNode[s.Node] = append(byNode[s.Node], s)
		}
	}
	var out []Event
	for node, ss := range byNode {
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].TMs < ss[j].TMs })
		prev := StateSample{Node: node, TMs: -1}
		for _, cur := range ss {
			from := prev.AskedMs
			if from == 0 {
				from = prev.TMs
			}
			from = max(from, 0)
			for k := prev.OOMKills + 1; k <= cur.OOMKills; k++ {
				out = append(out, Event{TMs: cur.TMs, FromMs: from, Node: node, Kind: EvOOMKill,
					Detail: fmt.Sprintf("OOM kill #%d (seen between %s and %s)", k, Secs(from), Secs(cur.TMs))})
			}
			for k := prev.Restarts + 1; k <= cur.Restarts; k++ {
				out = append(out, Event{TMs: cur.TMs, FromMs: from, Node: node, Kind: EvRestart,
					Detail: fmt.Sprintf("restart #%d by the runtime", k)})
			}
			if prev.Running && !cur.Running && (asked == nil || !asked(prev, cur)) {
				d := fmt.Sprintf("down, exit code %d", cur.ExitCode)
				if cur.OOMKilled {
					d += ", OOM killed"
				}
				out = append(out, Event{TMs: cur.TMs, FromMs: from, Node: node, Kind: EvDied, Detail: d})
			}
			prev = cur
		}
	}
	SortEvents(out)
	return out
}

// SortEvents orders events by time, then node.
func SortEvents(ev []Event) {
	sort.SliceStable(ev, func(i, j int) bool {
		if ev[i].TMs != ev[j].TMs {
			return ev[i].TMs < ev[j].TMs
		}
		return ev[i].Node < ev[j].Node
	})
}

// Deaths sums up one node's deaths nobody asked for.
type Deaths struct {
	Node     string `json:"node"`
	OOMKills int    `json:"oom_kills"`
	Restarts int    `json:"restarts"` // restarts by the runtime
	// Deaths counts each death once: an OOM kill that Docker restarts shows
	// as both an oom-kill and a restart, and maybe a died.
	Deaths    int     `json:"deaths"`
	CrashLoop bool    `json:"crash_loop"`
	TimesMs   []int64 `json:"times_ms"` // of the events of the largest kind
}

// Summarize counts each node's unasked deaths; a node restarted by the
// runtime at least threshold times is in a crash loop. Nodes with none are
// left out. The result is sorted by node.
func Summarize(events []Event, threshold int) []Deaths {
	type acc struct{ oom, restart, died []int64 }
	by := map[string]*acc{}
	for _, e := range events {
		a := by[e.Node]
		if a == nil {
			a = &acc{}
		}
		switch e.Kind {
		case EvOOMKill:
			a.oom = append(a.oom, e.TMs)
		case EvRestart:
			a.restart = append(a.restart, e.TMs)
		case EvDied:
			a.died = append(a.died, e.TMs)
		default:
			continue
		}
		by[e.Node] = a
	}
	var out []Deaths
	for node, a := range by {
		d := Deaths{Node: node, OOMKills: len(a.oom), Restarts: len(a.restart)}
		d.TimesMs = a.oom
		for _, t := range [][]int64{a.restart, a.died} {
			if len(t) > len(d.TimesMs) {
				d.TimesMs = t
			}
		}
		d.Deaths = len(d.TimesMs)
		d.CrashLoop = threshold > 0 && d.Restarts >= threshold
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out
}

// Describe is a one-line account of a node's deaths, with times.
func (d Deaths) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d OOM kill(s), %d restart(s) by the runtime", d.Node, d.OOMKills, d.Restarts)
	if d.CrashLoop {
		b.WriteString(", CRASH LOOP")
	}
	if len(d.TimesMs) > 0 {
		b.WriteString(" at ")
		const show = 8
		for i, t := range d.TimesMs {
			if i == show {
				fmt.Fprintf(&b, " ... (%d more)", len(d.TimesMs)-show)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(Secs(t))
		}
	}
	return b.String()
}

// Secs prints a time in ms as seconds to a tenth, e.g. 12.3s.
func Secs(t int64) string { return fmt.Sprintf("%.1fs", float64(t)/1000) }
