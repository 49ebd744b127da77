package queue

import (
	"encoding/json"
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/jsonfast"
)

// Msg is a queue op's own fields, stored as history.Op.Data. Which of them
// an op carries is by its type (the package doc's table); the rest are
// zero.
type Msg struct {
	Producer string `json:"producer,omitempty"` // publish: the producer's id
	Consumer string `json:"consumer,omitempty"` // fetch, deliver, ack, ack-sync, nak, consumer-info, drain
	Stream   string `json:"stream,omitempty"`   // stream-info
	// Value is the message's value: what a publish sent (also its
	// Nats-Msg-Id), what a deliver received, what an ack or nak answered.
	Value  string `json:"value,omitempty"`
	Leader string `json:"leader,omitempty"` // consumer-info, stream-info: the leader that answered
	// Seq is a stream sequence: a publish's PubAck, a delivery's
	// metadata, an ack's or nak's message.
	Seq     uint64 `json:"seq,omitempty"`
	Attempt int    `json:"attempt,omitempty"` // publish: 1, 2, ... (retries share the Nats-Msg-Id)
	// Delivered is the delivery count (NumDelivered) of a delivery, or of
	// the delivery an ack or nak answers.
	Delivered   uint64 `json:"delivered,omitempty"`
	ConsumerSeq uint64 `json:"consumer_seq,omitempty"` // deliver
	Got         int    `json:"got,omitempty"`          // fetch: the messages it returned
	// Pending is a consumer's NumPending (consumer-info, and what a drain
	// left); for an ordered consumer, the stream's last sequence minus the
	// last it delivered.
	Pending     uint64 `json:"pending,omitempty"`
	AckPending  uint64 `json:"ack_pending,omitempty"` // consumer-info, drain
	Redelivered uint64 `json:"redelivered,omitempty"` // consumer-info
	// LastSeq, FirstSeq and Msgs are the stream's state (stream-info).
	LastSeq  uint64 `json:"last_seq,omitempty"`
	FirstSeq uint64 `json:"first_seq,omitempty"`
	Msgs     uint64 `json:"msgs,omitempty"`
}

// Op is one op of a queue cell: the history's common fields and the
// queue's own.
type Op struct {
	history.Op
	M Msg
}

// Stored is the op as history.jsonl holds it, its Msg as Data.
func (o Op) Stored() history.Op {
	if !isQueueOp(o.Type) {
		return o.Op
	}
	return withMsg(o.Op, o.M)
}

// withMsg is op carrying m as its Data, as the recorder stores it.
func withMsg(op history.Op, m Msg) history.Op {
	op.Data = appendMsg(nil, &m)
	return op
}

// appendMsg appends m's JSON exactly as json.Marshal writes it, without
// its reflection (a queue run encodes three of these a message); a string
// json would escape goes through json.Marshal (TestAppendMsgAgrees).
func appendMsg(dst []byte, m *Msg) []byte {
	o := jsonfast.Begin(dst)
	o.StrOmit("producer", m.Producer)
	o.StrOmit("consumer", m.Consumer)
	o.StrOmit("stream", m.Stream)
	o.StrOmit("value", m.Value)
	o.StrOmit("leader", m.Leader)
	o.UintOmit("seq", m.Seq)
	o.IntOmit("attempt", int64(m.Attempt))
	o.UintOmit("delivered", m.Delivered)
	o.UintOmit("consumer_seq", m.ConsumerSeq)
	o.IntOmit("got", int64(m.Got))
	o.UintOmit("pending", m.Pending)
	o.UintOmit("ack_pending", m.AckPending)
	o.UintOmit("redelivered", m.Redelivered)
	o.UintOmit("last_seq", m.LastSeq)
	o.UintOmit("first_seq", m.FirstSeq)
	o.UintOmit("msgs", m.Msgs)
	if b, ok := o.End(); ok {
		return b
	}
	b, _ := json.Marshal(*m) // a copy, so m stays off the heap; it always encodes
	return append(dst, b...)
}

// queueOps types the ops of a history: each queue op's Msg from its Data,
// or, for a cell stored before ops were typed, from the history.Op
// fields it reused (legacyMsg). Either way the reused fields are cleared,
// so nothing reads them by mistake.
func queueOps(ops []history.Op) ([]Op, error) {
	out := make([]Op, len(ops))
	for n, op := range ops {
		var m Msg
		switch {
		case !isQueueOp(op.Type):
		case len(op.Data) > 0:
			if err := json.Unmarshal(op.Data, &m); err != nil {
				return nil, fmt.Errorf("line %d: %s data: %w", n+1, op.Type, err)
			}
		default:
			m = legacyMsg(op)
		}
		if isQueueOp(op.Type) {
			op.Key, op.Value, op.Rev, op.ExpectedRev, op.ErrSeq, op.Data = "", "", 0, 0, 0, nil
		}
		out[n] = Op{Op: op, M: m}
	}
	return out, nil
}

// MsgOf is a stored queue op's Msg (an anomaly's example in
// results.json): from its Data, else from the fields it reused.
func MsgOf(op history.Op) Msg {
	var m Msg
	if len(op.Data) == 0 || json.Unmarshal(op.Data, &m) != nil {
		return legacyMsg(op)
	}
	return m
}

// legacyMsg reads a queue op stored before ops were typed, whose fields
// the queue reused as this table says (Key, Value, Rev, ExpectedRev,
// ErrSeq):
//
//	publish        producer  value    PubAck sequence  attempt          -
//	fetch          consumer  -        messages got     -                -
//	deliver        consumer  payload  stream sequence  delivery count   consumer sequence
//	ack, nak,      consumer  value    stream sequence  delivery count   -
//	ack-sync
//	consumer-info  consumer  leader   NumPending       NumAckPending    NumRedelivered
//	drain          consumer  -        NumPending left  NumAckPending    -
//	stream-info    stream    leader   last sequence    messages         first sequence
func legacyMsg(op history.Op) Msg {
	switch op.Type {
	case OpPublish:
		return Msg{Producer: op.Key, Value: op.Value, Seq: op.Rev, Attempt: int(op.ExpectedRev)}
	case OpFetch:
		return Msg{Consumer: op.Key, Got: int(op.Rev)}
	case OpDeliver:
		return Msg{Consumer: op.Key, Value: op.Value, Seq: op.Rev, Delivered: op.ExpectedRev, ConsumerSeq: op.ErrSeq}
	case OpAck, OpAckSync, OpNak:
		return Msg{Consumer: op.Key, Value: op.Value, Seq: op.Rev, Delivered: op.ExpectedRev}
	case OpConsumerInfo:
		return Msg{Consumer: op.Key, Leader: op.Value, Pending: op.Rev, AckPending: op.ExpectedRev, Redelivered: op.ErrSeq}
	case OpDrain:
		return Msg{Consumer: op.Key, Pending: op.Rev, AckPending: op.ExpectedRev}
	case OpStreamInfo:
		return Msg{Stream: op.Key, Leader: op.Value, LastSeq: op.Rev, Msgs: op.ExpectedRev, FirstSeq: op.ErrSeq}
	}
	return Msg{}
}
