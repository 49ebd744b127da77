package counter

import (
	"encoding/json"
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The counter workload's ops in history.jsonl, each with its payload in
// history.Op.Data.
const (
	OpAdd  history.OpType = "counter-add"  // Op.Data is an OpMsg: ID, Counter, Delta, Total, Told, Attempts
	OpRead history.OpType = "counter-read" // Op.Data is an OpMsg: Counter, Value, Direct
)

func init() {
	history.RegisterOpTypes(OpAdd)
	history.RegisterReadTypes(OpRead)
}

// OpMsg is a counter op's payload.
type OpMsg struct {
	ID       string `json:"id,omitempty"`
	Counter  string `json:"counter"`
	Delta    int64  `json:"delta,omitempty"`
	Total    int64  `json:"total,omitempty"`
	Told     bool   `json:"told,omitempty"`
	Attempts int    `json:"attempts,omitempty"`
	Value    int64  `json:"value,omitempty"`
	Direct   bool   `json:"direct,omitempty"`
}

// AddOp is the op that records a; the caller sets node and times.
func AddOp(a Add) history.Op {
	data, _ := json.Marshal(OpMsg{ID: a.ID, Counter: a.Counter, Delta: a.Delta, Total: a.Total, Told: a.Told, Attempts: a.Attempts})
	return history.Op{Type: OpAdd, Client: a.Client, Outcome: a.Outcome, Err: a.Err, ErrCode: a.ErrCode, ErrMsg: a.ErrMsg, Data: data}
}

// ReadOp is the op that records r, answered; the caller sets node and times.
func ReadOp(r Read) history.Op {
	data, _ := json.Marshal(OpMsg{Counter: r.Counter, Value: r.Value, Direct: r.Direct})
	return history.Op{Type: OpRead, Client: r.Client, Node: r.Node, Outcome: history.OK, Data: data}
}

// FromHistory reads the adds and the answered reads out of a cell's ops,
// each naming its op's index. An op whose payload does not decode is an
// error naming it.
func FromHistory(ops []history.Op) (adds []Add, reads []Read, err error) {
	for i, op := range ops {
		if op.Type != OpAdd && op.Type != OpRead {
			continue
		}
		var m OpMsg
		if err := json.Unmarshal(op.Data, &m); err != nil {
			return nil, nil, fmt.Errorf("op %d (%s): %w", i, op.Type, err)
		}
		switch {
		case op.Type == OpAdd:
			adds = append(adds, Add{ID: m.ID, Counter: m.Counter, Delta: m.Delta, Outcome: op.Outcome, Total: m.Total, Told: m.Told,
				Attempts: m.Attempts, Err: op.Err, ErrCode: op.ErrCode, ErrMsg: op.ErrMsg, Client: op.Client, Invoke: op.Invoke,
				Complete: op.Complete, Op: i})
		case op.Outcome == history.OK:
			reads = append(reads, Read{Counter: m.Counter, Value: m.Value, Direct: m.Direct, Node: op.Node, Client: op.Client,
				Invoke: op.Invoke, Complete: op.Complete, Op: i})
		}
	}
	return adds, reads, nil
}
