package catchup

import (
	"encoding/json"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The catch-up's ops in history.jsonl, every publish and get, which the
// pipeline counts as it does every workload's; the checks judge
// catchup.json and the replicas.
const (
	OpPublish history.OpType = "publish" // one message of a publisher; Msg.ID, and Msg.Seq once acknowledged
	OpGetMsg  history.OpType = "get-msg" // one get of the reader on the catching-up node; Msg.Seq is the sequence asked for
)

func init() {
	history.RegisterOpTypes(OpPublish)
	history.RegisterReadTypes(OpGetMsg)
}

// Msg is a catch-up op's payload (history.Op.Data).
type Msg struct {
	ID    string `json:"id,omitempty"`  // publish: the message's id (its msgid.Header)
	Seq   uint64 `json:"seq,omitempty"` // the stream sequence acknowledged (publish) or asked for (get-msg)
	Phase Phase  `json:"phase"`
}

// MsgOf decodes a catch-up op's payload.
func MsgOf(op history.Op) (Msg, error) {
	var m Msg
	err := json.Unmarshal(op.Data, &m)
	return m, err
}

// opRecorder adds catch-up ops to the pipeline's history; its zero value
// records nothing (a cell driven outside the pipeline).
type opRecorder struct{ h *history.Recorder }

// add records one op invoked at at and ended at end with error kind ("":
// none; pubstats.go's names).
func (r opRecorder) add(typ history.OpType, client int, node string, at, end time.Time, kind string, m Msg) {
	if r.h == nil {
		return
	}
	data, _ := json.Marshal(m) // a struct of strings and numbers: cannot fail
	start := r.h.Start()
	r.h.Add(history.Op{Client: client, Node: node, Type: typ, Outcome: outcomeOf(kind), Err: history.ErrKind(kind),
		Invoke: max(0, int64(at.Sub(start))), Complete: max(0, int64(end.Sub(start))), Data: data})
}

// outcomeOf is the outcome of a publish or get that ended with kind: "not
// found" is an answer (of a stale replica); a timeout or an unreadable
// answer may have been stored; every other error is a refusal.
func outcomeOf(kind string) history.Outcome {
	switch kind {
	case "", string(history.ErrNotFound):
		return history.OK
	case client.ErrNameTimeout, client.ErrNameBadAck:
		return history.Info
	}
	return history.Fail
}
