package counter

import "github.com/jetstream-chaos/jetstream-chaos/history"

// Add is one add a client tried, as its history records it: all its
// attempts under one Nats-Msg-Id.
type Add struct {
	ID      string // its Nats-Msg-Id, unique in the run
	Counter string // the counter's subject
	Delta   int64
	// Outcome is its last attempt's: history.OK acknowledged, history.Fail
	// refused for sure, history.Info unknown (every attempt timed out or
	// lost its connection).
	Outcome  history.Outcome
	Total    int64 // with Told: the counter's total the ack named
	Told     bool  // the ack named a total (a duplicate's ack names none)
	Attempts int   // publishes under its id: above 1 means it was retried
	// Err, ErrCode and ErrMsg are its last attempt's error, when it had
	// one: what a refused add was answered.
	Err      history.ErrKind
	ErrCode  int
	ErrMsg   string
	Client   int
	Invoke   int64 // its first attempt's start, ns from the run's start
	Complete int64 // its last attempt's end
	Op       int   // its op's index in the history, or -1
}

// Read is one answered read of a counter's value.
type Read struct {
	Counter  string
	Value    int64
	Direct   bool   // through Direct Get (any replica may answer), else from the leader
	Node     string // the server the client was connected to
	Client   int
	Invoke   int64
	Complete int64
	Op       int
}

// Final is each counter's value after the heal, read from the stream's
// leader; a counter with no message has none (it counts as 0). Complete
// says every counter was read.
type Final struct {
	Values   map[string]int64 `json:"values"`
	Complete bool             `json:"complete"`
	Detail   string           `json:"detail,omitempty"` // why a counter could not be read
	// Replicas says the finish saved every server's copy of the stream
	// (replicas.json) before this file: replica-divergence judges it.
	// Cells stored before the replicas were read lack it and that check.
	Replicas bool `json:"replicas,omitempty"`
}
