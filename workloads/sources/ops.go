package sources

import (
	"encoding/json"
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The sources workload's own ops in history.jsonl, each with its payload
// in history.Op.Data. The consumers of the sourced stream record the queue
// workload's ops (queue.Consumers).
const (
	OpPublish  history.OpType = "source-publish" // Data: a Publish
	OpCopy     history.OpType = "copy-state"     // Data: a CopyState, one a second
	OpStepDown history.OpType = "copy-step-down" // Data: a StepDown: a stalled copy's stream asked to change leader
)

func init() { history.RegisterOpTypes(OpPublish, OpCopy, OpStepDown) }

// Publish is one publish attempt to an origin.
type Publish struct {
	Origin   string `json:"origin"`
	Producer string `json:"producer"`
	Value    string `json:"value"` // unique in the run: the message's body
	// ID is its Nats-Msg-Id: the value, or with Repeat an earlier
	// message's id whose duplicate window has passed.
	ID        string `json:"id"`
	Repeat    bool   `json:"repeat,omitempty"`
	Attempt   int    `json:"attempt"`
	Seq       uint64 `json:"seq,omitempty"`       // the PubAck's origin sequence
	Duplicate bool   `json:"duplicate,omitempty"` // the PubAck said Duplicate
}

// Link is one copy's progress: how far the mirror, or the sourced stream
// for one origin, has copied, by origin sequence.
type Link struct {
	From string `json:"from"` // the origin
	To   string `json:"to"`   // the mirror or the sourced stream
	// Copied is the highest origin sequence the copy holds: the mirror's
	// last sequence, or the newest Nats-Stream-Source sequence among the
	// origin's subjects in the sourced stream.
	Copied uint64 `json:"copied"`
	// Lag is what the copy's leader reports (StreamSourceInfo.Lag): origin
	// messages not yet delivered, updated only as messages arrive.
	Lag uint64 `json:"lag"`
	// ActiveMs is how long before the sample the copy last heard from its
	// origin, a message or a heartbeat (StreamSourceInfo.Active; -1:
	// never); nil when the copy's info did not report it (no leader, or
	// no source info). Msgs is the copy stream's message count.
	ActiveMs *int64 `json:"active_ms,omitempty"`
	Msgs     uint64 `json:"msgs"`
	// Error is why the sample could not read the copy's progress (then
	// Copied says nothing); SourceError what the copy's leader reports of
	// its source or mirror (StreamSourceInfo.Error).
	Error       string `json:"error,omitempty"`
	SourceError string `json:"source_error,omitempty"`
	// At is when the copy's progress was read (history ns); the origins
	// were read before it.
	At     int64  `json:"at,omitempty"`
	Leader string `json:"leader,omitempty"`
}

// Head is an origin's state at a sample.
type Head struct {
	Name    string `json:"name"`
	LastSeq uint64 `json:"last_seq"`
	Msgs    uint64 `json:"msgs"`
	Error   string `json:"error,omitempty"`
}

// CopyState is one sample of every origin and every copy.
type CopyState struct {
	Origins []Head `json:"origins"`
	Links   []Link `json:"links"`
	Final   bool   `json:"final,omitempty"` // taken by the finish, after the workload
}

// StepDown is a leader step-down of a copy's stream the finish asked for
// when the copy had stalled past the bound.
type StepDown struct {
	Stream string `json:"stream"`
	Link   string `json:"link"` // "origin -> copy"
}

// PublishOp is the op of one publish attempt; the caller sets times.
func PublishOp(p Publish, client int, node string) history.Op {
	return withData(history.Op{Type: OpPublish, Client: client, Node: node}, p)
}

func withData(op history.Op, v any) history.Op {
	op.Data, _ = json.Marshal(v) // structs of strings and numbers always encode
	return op
}

// Ops is a cell's history typed: the publishes, copy samples and
// step-downs, each with its op's index, and the fault windows.
type Ops struct {
	All       []history.Op
	Publishes []PublishAt
	Copies    []CopyAt
	StepDowns []StepDownAt
	Faults    []history.Op // injected fault windows, in history order
}

// PublishAt is a publish attempt, its op and the op's index.
type PublishAt struct {
	Publish
	H  history.Op
	Op int
}

// CopyAt is a copy sample, taken at At (its op's complete), and its op's
// index.
type CopyAt struct {
	CopyState
	At int64
	Op int
}

// StepDownAt is a step-down, its op and the op's index.
type StepDownAt struct {
	StepDown
	H  history.Op
	Op int
}

// splitOps types the sources ops of a history. A payload that does not
// decode is an error naming its line.
func splitOps(ops []history.Op) (Ops, error) {
	out := Ops{All: ops}
	for n, op := range ops {
		var err error
		switch op.Type {
		case OpPublish:
			var p Publish
			err = json.Unmarshal(op.Data, &p)
			out.Publishes = append(out.Publishes, PublishAt{Publish: p, H: op, Op: n})
		case OpCopy:
			var c CopyState
			err = json.Unmarshal(op.Data, &c)
			out.Copies = append(out.Copies, CopyAt{CopyState: c, At: op.Complete, Op: n})
		case OpStepDown:
			var s StepDown
			err = json.Unmarshal(op.Data, &s)
			out.StepDowns = append(out.StepDowns, StepDownAt{StepDown: s, H: op, Op: n})
		case history.Fault:
			if op.Outcome != history.Fail { // a fault never injected changed nothing
				out.Faults = append(out.Faults, op)
			}
		}
		if err != nil {
			return out, fmt.Errorf("line %d: %s data: %w", n+1, op.Type, err)
		}
	}
	return out, nil
}

// Heal is the end of the last fault window, or 0 without one.
func (o Ops) Heal() int64 {
	var h int64
	for _, f := range o.Faults {
		h = max(h, f.Complete)
	}
	return h
}
