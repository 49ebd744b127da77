package observe

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// File is the observer's file in a cell's folder: one Sample a line, the
// first a KindStart, the last a KindStop unless the run was cut short.
const File = "nodes.jsonl"

// Kind is what a line of nodes.jsonl holds.
type Kind string

// The kinds of line; see the package doc for how each is read.
const (
	KindStart  Kind = "start" // the first line: the nodes, the period
	KindUsage  Kind = "usage" // Bytes: memory as the limit sees it
	KindRSS    Kind = "rss"   // Bytes: resident memory
	KindLimit  Kind = "limit" // Bytes: the hard limit from now on (0: none)
	KindState  Kind = "state" // State, or Err
	KindHealth Kind = "health"
	KindStream Kind = "stream" // Stream, or Err
	KindStop   Kind = "stop"   // the last line: the observer stopped
)

// Sample is one line of nodes.jsonl. T is when the answer came, Asked when
// the reading was asked for (state, health and stream readings), both ns
// on the history's clock.
type Sample struct {
	T     int64  `json:"t_ns"`
	Asked int64  `json:"asked_ns,omitempty"`
	Node  string `json:"node,omitempty"`
	Kind  Kind   `json:"kind"`
	// Bytes is a usage, rss or limit reading.
	Bytes int64              `json:"bytes,omitempty"`
	State *cluster.NodeState `json:"state,omitempty"`
	// Status is /healthz's HTTP status (0: no answer); Err says why it was
	// not 200, or why a state or stream reading failed.
	Status int     `json:"status,omitempty"`
	Stream *Stream `json:"stream,omitempty"`
	Err    string  `json:"error,omitempty"`
	// The start line's: the nodes in the cluster's order, the period.
	Nodes []string `json:"nodes,omitempty"`
	Every int64    `json:"every_ns,omitempty"`
}

// Stream is one node's own copy of the workload's stream, from its /jsz.
type Stream struct {
	Name     string `json:"name"`
	Has      bool   `json:"has"` // false: the node holds no copy (yet)
	Msgs     uint64 `json:"msgs,omitempty"`
	Bytes    uint64 `json:"bytes,omitempty"`
	FirstSeq uint64 `json:"first_seq,omitempty"`
	LastSeq  uint64 `json:"last_seq,omitempty"`
	// Leader is the stream's leader as this node sees it; Replicas are the
	// other peers with their lag, as this node knows them (only the
	// leader's view is current).
	Leader   string         `json:"leader,omitempty"`
	Replicas []cluster.Peer `json:"replicas,omitempty"`
}

// Leads says whether the node that read it led the stream then.
func (s Sample) Leads() bool {
	return s.Kind == KindStream && s.Stream != nil && s.Stream.Leader != "" && s.Stream.Leader == s.Node
}

// Record is a cell's nodes.jsonl as read back.
type Record struct {
	Nodes   []string      // in the cluster's order, from the start line
	Every   time.Duration // the memory period
	Samples []Sample      // every line but the start and stop lines, by T
	// Complete says the stop line was read: the observer ran to the end of
	// the cell. Without it the file was cut short (the harness was killed)
	// and says nothing of what came after End.
	Complete bool
	End      int64 // ns: the stop line's time, or the last sample's
}

// Load reads dir's nodes.jsonl; nil, nil when there is none (a cell stored
// before the pipeline observed the nodes). A last line cut short (the
// harness killed while writing it) is left out, as a history's is; any
// other line that does not decode, and a file that does not start with
// its start line, is an error naming file and line.
func Load(dir string) (*Record, error) {
	path := filepath.Join(dir, File)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &Record{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var pending error
	n := 0
	for sc.Scan() {
		n++
		if pending != nil {
			return nil, pending
		}
		var s Sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			pending = fmt.Errorf("%s:%d: %w", path, n, err)
			continue
		}
		if err := r.add(s, n); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
	}
	if n == 0 || (n == 1 && pending != nil) {
		return nil, fmt.Errorf("%s: empty: the observer never wrote its start line", path)
	}
	sort.SliceStable(r.Samples, func(i, j int) bool { return r.Samples[i].T < r.Samples[j].T })
	if !r.Complete && len(r.Samples) > 0 {
		r.End = r.Samples[len(r.Samples)-1].T
	}
	return r, nil
}

// add takes line n's sample into the record.
func (r *Record) add(s Sample, n int) error {
	switch {
	case n == 1 && s.Kind != KindStart:
		return fmt.Errorf("the first line is a %q, not the observer's start line", s.Kind)
	case n > 1 && s.Kind == KindStart:
		return fmt.Errorf("a second start line")
	case r.Complete:
		return fmt.Errorf("a %q after the stop line", s.Kind)
	}
	switch s.Kind {
	case KindStart:
		r.Nodes, r.Every = s.Nodes, time.Duration(s.Every)
	case KindStop:
		r.Complete, r.End = true, s.T
	case KindUsage, KindRSS, KindLimit, KindState, KindHealth, KindStream:
		if s.Node == "" {
			return fmt.Errorf("a %q line names no node", s.Kind)
		}
		r.Samples = append(r.Samples, s)
	default:
		return fmt.Errorf("unknown kind %q", s.Kind)
	}
	return nil
}

// Memory is every node's usage, RSS and limit as series in ms, the nodes
// in the cluster's order (a node renamed mid-cell is its own entry).
func (r *Record) Memory() []NodeMemory {
	var out []NodeMemory
	idx := map[string]int{}
	node := func(name string) *NodeMemory {
		i, ok := idx[name]
		if !ok {
			i = len(out)
			idx[name] = i
			out = append(out, NodeMemory{Node: name})
		}
		return &out[i]
	}
	for _, n := range r.Nodes {
		node(n)
	}
	for _, s := range r.Samples {
		switch s.Kind {
		case KindUsage:
			node(s.Node).Usage.Add(nsToMs(s.T), s.Bytes)
		case KindRSS:
			node(s.Node).RSS.Add(nsToMs(s.T), s.Bytes)
		case KindLimit:
			node(s.Node).Limit.Add(nsToMs(s.T), s.Bytes)
		}
	}
	return out
}

// States is every state reading, in ms, by time.
func (r *Record) States() []StateSample {
	var out []StateSample
	for _, s := range r.Samples {
		if s.Kind != KindState {
			continue
		}
		st := StateSample{TMs: nsToMs(s.T), AskedMs: nsToMs(s.Asked), Node: s.Node, Err: s.Err}
		if s.State != nil {
			st.NodeState = *s.State
		}
		if st.Err == "" && s.State == nil {
			st.Err = "no state recorded"
		}
		out = append(out, st)
	}
	return out
}

// Health is every /healthz answer, in ms, by time.
func (r *Record) Health() []HealthSample {
	var out []HealthSample
	for _, s := range r.Samples {
		if s.Kind == KindHealth {
			out = append(out, HealthSample{TMs: nsToMs(s.T), Node: s.Node, OK: s.Status == 200, Status: s.Status, Error: s.Err})
		}
	}
	return out
}

// Events are the events nobody asked for (DetectEvents) in the state
// readings.
func (r *Record) Events() []Event { return DetectEvents(r.States(), nil) }

// nsToMs is a time on the history's clock in ms.
func nsToMs(ns int64) int64 { return ns / 1e6 }
