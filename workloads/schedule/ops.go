package schedule

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The schedule workload's ops in history.jsonl, each with its payload in
// history.Op.Data.
const (
	OpCreate history.OpType = "schedule-create" // Op.Data is a Schedule
	OpSeen   history.OpType = "schedule-seen"   // Op.Data is a Firing the live consumer read
	OpStop   history.OpType = "schedule-stop"   // Op.Data is a Stop: a repeating schedule purged at the end
)

func init() {
	history.RegisterOpTypes(OpCreate, OpStop)
	history.RegisterReadTypes(OpSeen)
}

// The kinds of schedule.
const (
	KindAt    = "at"    // one-shot: "@at <RFC 3339>"
	KindEvery = "every" // repeating: "@every <period>"
)

// Schedule is one schedule a client created: its subject, its target,
// when it is due (a one-shot) or its period (a repeating one), and the
// create's wall-clock span (Unix ns) beside the history's own times.
type Schedule struct {
	Subject string        `json:"subject"`
	Target  string        `json:"target"`
	Kind    string        `json:"kind"`
	At      int64         `json:"at,omitempty"`    // @at: due, Unix ns (whole seconds)
	Every   time.Duration `json:"every,omitempty"` // @every
	Body    string        `json:"body"`
	Seq     uint64        `json:"seq,omitempty"` // the schedule message's sequence, acknowledged
	// WallInvoke and WallComplete are the create's span on the host's
	// clock, which the servers' timestamps are on.
	WallInvoke   int64 `json:"wall_invoke"`
	WallComplete int64 `json:"wall_complete"`
}

// Firing is one message a schedule published on its target: its sequence
// in the stream it was read from, the schedule that fired it
// (Nats-Scheduler), Nats-Schedule-Next ("purge" for a one-shot, else the
// next due time), its body and its stored time (Unix ns). Seen is when
// the live consumer read it (wall clock, Unix ns); 0 in the read-back.
type Firing struct {
	Seq       uint64 `json:"seq"`
	Target    string `json:"target"`
	Scheduler string `json:"scheduler"`
	Next      string `json:"next"`
	Body      string `json:"body"`
	Time      int64  `json:"time"`
	Seen      int64  `json:"seen,omitempty"`
	// OriginSeq is, in a work-queue cell, the firing's sequence in the
	// work queue (Nats-Stream-Source's on a copy); InOrigin says it was
	// read there, not yet sourced.
	OriginSeq uint64 `json:"origin_seq,omitempty"`
	InOrigin  bool   `json:"in_origin,omitempty"`
}

// ID is what tells firings apart: the sequence in the work queue when
// there is one, else in the stream read.
func (f Firing) ID() uint64 {
	if f.OriginSeq != 0 {
		return f.OriginSeq
	}
	return f.Seq
}

// NextTime is the next due time a repeating schedule's firing names, in
// Unix ns; ok is false for a one-shot's "purge" or a header that does not
// parse.
func (f Firing) NextTime() (int64, bool) {
	t, err := time.Parse(time.RFC3339Nano, f.Next)
	if err != nil {
		return 0, false
	}
	return t.UnixNano(), true
}

// Stop is a repeating schedule purged at the end of the run, and when
// (wall clock, Unix ns): it fires no more after.
type Stop struct {
	Subject string `json:"subject"`
	Wall    int64  `json:"wall"`
}

// CreateAt is a create with its history op and the op's index.
type CreateAt struct {
	Schedule
	H  history.Op
	Op int
}

// SeenAt is a firing the live consumer read, with its op's index.
type SeenAt struct {
	Firing
	Op int
}

// Window is a fault window on the host's clock (Unix ns).
type Window struct {
	Start, End int64
	Fault      string
}

// Ops are a cell's schedule ops, typed.
type Ops struct {
	Creates []CreateAt
	Seen    []SeenAt
	Stops   []Stop
	Windows []Window
	// Offset turns the history's times into wall-clock ones (wall =
	// history time + Offset), from the creates; ok is false without one.
	Offset   int64
	OffsetOK bool
}

// splitOps types the schedule ops of a history. A payload that does not
// decode is an error naming its line.
func splitOps(ops []history.Op) (Ops, error) {
	var out Ops
	var faults []history.Op
	for n, op := range ops {
		var err error
		switch op.Type {
		case OpCreate:
			var s Schedule
			err = json.Unmarshal(op.Data, &s)
			out.Creates = append(out.Creates, CreateAt{Schedule: s, H: op, Op: n})
			if !out.OffsetOK && s.WallInvoke != 0 {
				out.Offset, out.OffsetOK = s.WallInvoke-op.Invoke, true
			}
		case OpSeen:
			var f Firing
			err = json.Unmarshal(op.Data, &f)
			out.Seen = append(out.Seen, SeenAt{Firing: f, Op: n})
		case OpStop:
			var s Stop
			err = json.Unmarshal(op.Data, &s)
			out.Stops = append(out.Stops, s)
		case history.Fault:
			if op.Outcome != history.Fail { // a fault never injected changed nothing
				faults = append(faults, op)
			}
		}
		if err != nil {
			return out, fmt.Errorf("line %d: %s data: %w", n+1, op.Type, err)
		}
	}
	for _, f := range faults {
		out.Windows = append(out.Windows, Window{Start: f.Invoke + out.Offset, End: f.Complete + out.Offset, Fault: f.Fault})
	}
	return out, nil
}

// deadline is when something due at due may fire at the latest: due
// plus bound, or grace after the end of a fault window that starts by
// then and whose grace outlasts it (a window that ended just before due
// leaves a cluster still recovering); one window may push the deadline
// into another. by is the last window that moved it.
func deadline(due int64, bound, grace time.Duration, windows []Window) (int64, *Window) {
	d := due + int64(bound)
	var by *Window
	for moved := true; moved; {
		moved = false
		for k := range windows {
			w := &windows[k]
			if w.Start <= d && w.End+int64(grace) > d {
				d, by, moved = w.End+int64(grace), w, true
			}
		}
	}
	return d, by
}
