package batch

import (
	"encoding/json"
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The batch workload's ops in history.jsonl, each with its payload in
// history.Op.Data: every batch a producer tried, and every message a
// reader's ordered consumer delivered.
const (
	OpBatch   history.OpType = "batch"      // Op.Data is an OpMsg of the batch: ID, Kind, Size, AckSeq
	OpDeliver history.OpType = "batch-read" // Op.Data is an OpMsg of the delivery: Seq, and Batch and Index of a batch's message
)

func init() {
	history.RegisterOpTypes(OpBatch)
	history.RegisterReadTypes(OpDeliver)
}

// OpMsg is a batch op's payload.
type OpMsg struct {
	ID     string `json:"id,omitempty"` // batch: the batch's id
	Kind   Kind   `json:"kind,omitempty"`
	Size   int    `json:"size,omitempty"`
	AckSeq uint64 `json:"ack_seq,omitempty"`
	Seq    uint64 `json:"seq,omitempty"`   // batch-read: the sequence delivered
	Batch  string `json:"batch,omitempty"` // batch-read: the batch it names, if any
	Index  int    `json:"index,omitempty"`
}

// BatchOp is the op that records b: its outcome, and the payload the
// checks read back with Batches. The caller sets client, node and times.
func BatchOp(b Batch, errKind history.ErrKind) history.Op {
	data, _ := json.Marshal(OpMsg{ID: b.ID, Kind: b.Kind, Size: b.Size, AckSeq: b.AckSeq}) // strings and numbers: cannot fail
	return history.Op{Type: OpBatch, Outcome: b.Outcome, Err: errKind, Data: data}
}

// DeliverOp is the op that records reader client's delivery d.
func DeliverOp(d Delivery) history.Op {
	data, _ := json.Marshal(OpMsg{Seq: d.Seq, Batch: d.Batch, Index: d.Index})
	return history.Op{Type: OpDeliver, Outcome: history.OK, Data: data}
}

// FromHistory reads the batches and the deliveries out of a cell's ops,
// each naming its op's index; a delivery's reader is its op's client. An
// op whose payload does not decode is an error naming it.
func FromHistory(ops []history.Op) (batches []Batch, deliveries []Delivery, err error) {
	for i, op := range ops {
		if op.Type != OpBatch && op.Type != OpDeliver {
			continue
		}
		var m OpMsg
		if err := json.Unmarshal(op.Data, &m); err != nil {
			return nil, nil, fmt.Errorf("op %d (%s): %w", i, op.Type, err)
		}
		if op.Type == OpBatch {
			batches = append(batches, Batch{ID: m.ID, Kind: m.Kind, Size: m.Size, Outcome: op.Outcome, AckSeq: m.AckSeq, Op: i})
			continue
		}
		deliveries = append(deliveries, Delivery{Reader: fmt.Sprint(op.Client), Seq: m.Seq, Batch: m.Batch, Index: m.Index, Op: i})
	}
	return batches, deliveries, nil
}
