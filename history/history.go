// Package history holds the record of a run: every client operation, every
// fault window, and what the KV stream really contained afterwards.
//
// The shape follows Jepsen and etcd's tests/robustness: an operation has an
// invoke and a complete time from one monotonic clock, and a write whose
// outcome is unknown (a timeout) is kept as indeterminate, never as failed.
// Equal times are concurrent: an op precedes another only if it completed
// strictly before the other was invoked (package kvcheck states the rule).
//
// ReadOps, ReadStream and Load validate what they read (Op.Validate,
// Entry.Validate) and name the file and line of the first bad record.
package history

import (
	"encoding/json"
	"fmt"
	"time"
)

// OpType names what an operation did.
type OpType string

const (
	Get    OpType = "get"    // kv.Get
	Update OpType = "update" // kv.Update(key, value, expectedRev)
	Put    OpType = "put"    // kv.Put (blind write)
	Create OpType = "create" // kv.Create (expects no current value, or a delete marker)
	Delete OpType = "delete" // kv.Delete: a delete marker; Value is the marker's id
	Purge  OpType = "purge"  // kv.Purge: a purge marker that removes the key's older revisions
	Fault  OpType = "fault"  // a nemesis window; see Op.Fault
)

// Outcome says whether an operation took effect.
type Outcome string

const (
	OK   Outcome = "ok"   // acknowledged
	Fail Outcome = "fail" // definitely did not take effect
	Info Outcome = "info" // indeterminate: a write may or may not have been applied
)

// ErrKind classifies errors by JetStream API error code, never by text.
type ErrKind string

const (
	ErrNone            ErrKind = ""
	ErrWrongLastSeq    ErrKind = "wrong_last_seq"          // 10071, carries the subject's current last sequence
	ErrWrongLastSeqAny ErrKind = "wrong_last_seq_inflight" // 10164, no sequence: leader busy with the subject
	ErrNotFound        ErrKind = "not_found"               // key has no value (a normal get result, not a failure)
	ErrTimeout         ErrKind = "timeout"                 // indeterminate
	ErrNoResponders    ErrKind = "no_responders"           // nothing took the request
	ErrKeyExists       ErrKind = "key_exists"              // create on a key that has a value
	ErrUnavailable     ErrKind = "unavailable"             // 10008: JetStream temporarily unavailable (503)
	ErrMsgIDInProcess  ErrKind = "msg_id_in_process"       // 10158: a copy with the publish's Nats-Msg-Id is being stored
	ErrOther           ErrKind = "other"
)

// NemesisClient is the Client id of fault records.
const NemesisClient = -1

// Op is one line of history.jsonl.
type Op struct {
	Client int    `json:"client"`
	Node   string `json:"node,omitempty"` // server the client was connected to when it invoked
	Type   OpType `json:"type"`
	Key    string `json:"key,omitempty"`

	// Value is the value written (writes) or returned (gets). A delete or
	// purge marker carries a unique id in a header instead (see
	// kvupdate's client), and a get that found a marker returns it with
	// Err not_found and the marker's revision.
	Value       string `json:"value,omitempty"`
	ExpectedRev uint64 `json:"expected_rev,omitempty"` // update: the revision it expected
	Rev         uint64 `json:"rev,omitempty"`          // returned revision (write ack or get result)

	Outcome Outcome `json:"outcome"`
	Err     ErrKind `json:"err,omitempty"`
	ErrCode int     `json:"err_code,omitempty"` // JetStream API error code when there was one
	ErrSeq  uint64  `json:"err_seq,omitempty"`  // 10071: the subject's last sequence at the leader
	ErrMsg  string  `json:"err_msg,omitempty"`

	// Nanoseconds since the run's start, from a monotonic clock.
	Invoke   int64 `json:"invoke"`
	Complete int64 `json:"complete"`

	// Data is the op's own payload when its workload types it (queue's
	// publish, deliver, ack...): a JSON object of the workload's type,
	// which it decodes itself. kv-update's ops keep the flat fields above
	// instead: the KV checkers read millions of them, and every stored cell
	// has them.
	Data json.RawMessage `json:"data,omitempty"`

	// Fault records only.
	Fault    string   `json:"fault,omitempty"`
	Targets  []string `json:"targets,omitempty"`
	Verified *bool    `json:"verified,omitempty"` // nil: not checked
	Detail   string   `json:"detail,omitempty"`
}

// IsWrite reports whether the op tried to change the key: a value, or a
// delete or purge marker (which has a revision like any write).
func (o Op) IsWrite() bool {
	return o.Type == Update || o.Type == Put || o.Type == Create || o.Type == Delete || o.Type == Purge
}

// IsKV reports whether t is one of kv-update's key-value op types (get,
// update, put, create, delete, purge): what the KV checkers judge. Other
// types in the same history (kv-update's TTL keys' ops) are not theirs.
func IsKV(t OpType) bool {
	switch t {
	case Get, Update, Put, Create, Delete, Purge:
		return true
	}
	return false
}

// IsMarker reports whether the op writes a delete or purge marker.
func (o Op) IsMarker() bool { return o.Type == Delete || o.Type == Purge }

// MarkerOperation is the stream entry's Operation a write leaves: "del",
// "purge", or "" for a value.
func (o Op) MarkerOperation() string {
	switch o.Type {
	case Delete:
		return "del"
	case Purge:
		return "purge"
	}
	return ""
}

// Latency is how long the op took.
func (o Op) Latency() time.Duration { return time.Duration(o.Complete - o.Invoke) }

// Entry is one message of a stream as read after the run: for a KV bucket
// the key and value, for other streams the subject and what the workload
// makes of the message.
type Entry struct {
	Seq       uint64 `json:"seq"`
	Key       string `json:"key"`
	Value     string `json:"value"`
	Operation string `json:"op,omitempty"` // "", "del" or "purge"; a marker's Value is its id
}

// Describe says what the entry holds, as a check's example puts it: a
// value under its key, or a delete or purge marker for the key.
func (e Entry) Describe() string {
	if e.Operation != "" {
		return fmt.Sprintf("a %s marker for %s (%q)", e.Operation, e.Key, e.Value)
	}
	return fmt.Sprintf("%q under %s", e.Value, e.Key)
}

// History is everything a checker may look at.
type History struct {
	Ops []Op `json:"ops"`
	// Stream is the bucket's stream read back after the final heal, in
	// sequence order. StreamComplete is false when it could not be read in
	// full, so checkers that depend on it must answer "unknown".
	Stream         []Entry `json:"stream,omitempty"`
	StreamComplete bool    `json:"stream_complete"`
	// StreamTorn is the line of stream.jsonl that was cut short, its last
	// (the read-back did not finish: StreamComplete is false), or 0.
	StreamTorn int `json:"stream_torn,omitempty"`
	// StreamLast is the stream's last sequence when it is known (a
	// workload that knows it sets it; Load does not). With StreamComplete
	// false, the sequences up to it that Stream lacks are those nobody
	// saw; with it 0 as well, how far the stream went is unknown.
	StreamLast uint64 `json:"stream_last,omitempty"`
	// Part is set when this is one part of a Split, judged on its own: the
	// ops' positions in the whole history and what only the whole knows.
	Part *Part `json:"-"`
}

// Line is the line of the whole history.jsonl that holds Ops[i].
func (h *History) Line(i int) int {
	if h.Part != nil && i >= 0 && i < len(h.Part.Index) {
		return int(h.Part.Index[i]) + 1
	}
	return i + 1
}
