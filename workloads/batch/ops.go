package batch

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The batch workload's ops in history.jsonl, each with its payload in
// history.Op.Data: every batch a producer tried, and every message a
// reader's ordered consumer delivered.
const (
	OpBatch   history.OpType = "batch"      // Op.Data is an OpMsg of the batch: ID, Kind, Size, AckSeq
	OpDeliver history.OpType = "batch-read" // Op.Data is an OpMsg of the delivery: Seq, and Batch and Index of a batch's message
	OpSnap    history.OpType = "batch-snap" // Op.Data is an OpMsg of a multi-subject read: UpTo, Subjects, Got
)

func init() {
	history.RegisterOpTypes(OpBatch)
	history.RegisterReadTypes(OpDeliver, OpSnap)
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

	UpTo     uint64   `json:"up_to,omitempty"` // batch-snap: the sequence read up to
	Subjects []string `json:"subjects,omitempty"`
	Got      []Stored `json:"got,omitempty"`
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

// SnapOp is the op that records a multi-subject read that was answered.
func SnapOp(s Snapshot) history.Op {
	data, _ := json.Marshal(OpMsg{UpTo: s.UpTo, Subjects: s.Subjects, Got: s.Got})
	return history.Op{Type: OpSnap, Outcome: history.OK, Data: data}
}

// Recorded is what a cell's ops say its clients did.
type Recorded struct {
	Batches    []Batch
	Deliveries []Delivery
	Snapshots  []Snapshot
}

// FromHistory reads the batches, deliveries and multi-subject reads out of
// a cell's ops, each naming its op's index; a reader is its op's client. A
// read that was not answered (its op failed) is left out. An op whose
// payload does not decode is an error naming it.
func FromHistory(ops []history.Op) (Recorded, error) {
	var r Recorded
	for i, op := range ops {
		if op.Type != OpBatch && op.Type != OpDeliver && op.Type != OpSnap {
			continue
		}
		var m OpMsg
		if err := json.Unmarshal(op.Data, &m); err != nil {
			return Recorded{}, fmt.Errorf("op %d (%s): %w", i, op.Type, err)
		}
		reader := strconv.Itoa(op.Client)
		switch {
		case op.Type == OpBatch:
			r.Batches = append(r.Batches, Batch{ID: m.ID, Kind: m.Kind, Size: m.Size, Outcome: op.Outcome, AckSeq: m.AckSeq, Op: i,
				ErrCode: op.ErrCode, ErrMsg: op.ErrMsg})
		case op.Outcome != history.OK:
		case op.Type == OpDeliver:
			r.Deliveries = append(r.Deliveries, Delivery{Reader: reader, Seq: m.Seq, Batch: m.Batch, Index: m.Index, Op: i})
		default:
			r.Snapshots = append(r.Snapshots, Snapshot{Reader: reader, UpTo: m.UpTo, Subjects: m.Subjects, Got: m.Got, Op: i})
		}
	}
	return r, nil
}
