package batch

import "github.com/jetstream-chaos/jetstream-chaos/history"

// Kind is what a producer meant a batch to do.
type Kind string

// The kinds of batch a producer tries. Only KindCommit and KindPlain may
// be stored; the others test all-or-nothing from the other side.
const (
	KindCommit       Kind = "commit"         // committed as it is
	KindWrongLastSeq Kind = "wrong-last-seq" // committed expecting a last sequence the stream is past: refused whole
	KindAbandoned    Kind = "abandoned"      // never committed: the server drops it after its idle timeout
	KindDuplicateID  Kind = "duplicate-id"   // carries a Nats-Msg-Id already stored
	// KindPlain is one message published on its own, not as a batch, with
	// its id as Nats-Msg-Id and retried under it: lost, unexpected and
	// duplicate messages by the same rules, and plain publishes racing the
	// batches' commits.
	KindPlain Kind = "plain"
)

// Batch is one batch a producer tried, as its history records it.
type Batch struct {
	ID   string // the producer's own id of it, in every message's header
	Kind Kind
	Size int // its messages, the commit included (added ones, for an abandoned batch)
	// Outcome is the commit's: history.OK acknowledged, history.Fail
	// refused for sure (or never committed), history.Info unknown (a
	// timeout, a lost connection).
	Outcome history.Outcome
	AckSeq  uint64 // with OK: the stream sequence the commit's ack named
	Op      int    // its op's index in the history, or -1
	// ErrCode and ErrMsg are what the commit was answered, when it was
	// an error (the history's; none in cells stored before).
	ErrCode int
	ErrMsg  string
}

// Stored is one message of the stream as read back: its sequence and
// subject, and the batch and place in it (from 1) its headers name; Batch
// is empty for a message that names none.
type Stored struct {
	Seq     uint64 `json:"seq"`
	Subject string `json:"subject,omitempty"`
	Batch   string `json:"batch,omitempty"`
	Index   int    `json:"index,omitempty"`
}

// ReadBack is the stream as read back after the heal, in sequence order.
type ReadBack struct {
	Msgs     []Stored `json:"msgs"`
	Complete bool     `json:"complete"`         // the read reached the stream's last sequence
	LastSeq  uint64   `json:"last_seq"`         // the last sequence read
	Detail   string   `json:"detail,omitempty"` // how the read ended, when it is not complete
	// Replicas says the finish saved every server's copy of the stream
	// (replicas.json) before this file: replica-divergence judges it.
	// Cells stored before the replicas were read lack it and that check.
	Replicas bool `json:"replicas,omitempty"`
}
