package history

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// LineError is a malformed line of history.jsonl or stream.jsonl. File is
// the path it was read from, or the file's usual name for a history held
// in memory; Line counts from 1 (the op at index i is line i+1 of
// history.jsonl, the stream entry at index i is line i+2 of stream.jsonl,
// after the header).
type LineError struct {
	File string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// Validate reports the first thing that makes the op unreadable as a
// record of any workload: an unknown type or outcome, a negative time, a
// completion before the invocation, a client op without a key or a client
// id, a fault record with one, an ok op carrying an error. It judges the
// record, not the system: a legal record of an illegal behaviour (a stale
// read, a lost write) is valid. What a particular checker needs on top
// (the KV checkers: values on writes, revisions on ok ops) it checks
// itself (checker.Validate).
func (o Op) Validate() error {
	switch {
	case o.Type == Get, o.Type == Update, o.Type == Put, o.Type == Create, o.Type == Delete, o.Type == Purge,
		o.Type == Fault, registered(o.Type):
	case o.Type == "":
		return errors.New("missing type")
	default:
		return fmt.Errorf("unknown type %q (want %s)", o.Type, knownTypes())
	}
	switch o.Outcome {
	case OK, Fail, Info:
	case "":
		return errors.New("missing outcome")
	default:
		return fmt.Errorf("unknown outcome %q (want ok, fail or info)", o.Outcome)
	}
	switch {
	case o.Invoke < 0:
		return fmt.Errorf("negative invoke time %d", o.Invoke)
	case o.Complete < 0:
		return fmt.Errorf("negative complete time %d", o.Complete)
	case o.Complete < o.Invoke:
		return fmt.Errorf("completes at %d, before it was invoked at %d", o.Complete, o.Invoke)
	}
	if registered(o.Type) {
		return nil // the workload's own op: it says what else its records need
	}
	if o.Type == Fault {
		if o.Client != NemesisClient {
			return fmt.Errorf("fault record with client %d (want %d)", o.Client, NemesisClient)
		}
		return nil
	}
	switch {
	case o.Client < 0:
		return fmt.Errorf("%s with client %d: client ops have ids from 0 (%d is for fault records)", o.Type, o.Client, NemesisClient)
	case o.Key == "":
		return fmt.Errorf("%s without a key", o.Type)
	case o.Outcome == OK && o.Err != ErrNone && (o.Err != ErrNotFound || o.Type != Get):
		return fmt.Errorf("ok %s with error %q", o.Type, o.Err)
	}
	return nil
}

var (
	typesMu sync.RWMutex
	types   = map[OpType]bool{}
	reads   = map[OpType]bool{}
)

// RegisterOpTypes makes a workload's own op types valid in a history (the
// queue workload's publish, fetch, deliver, ack...). A workload calls it
// in an init function, next to its Register.
func RegisterOpTypes(ts ...OpType) {
	typesMu.Lock()
	defer typesMu.Unlock()
	for _, t := range ts {
		types[t] = true
	}
}

// RegisterReadTypes is RegisterOpTypes for types whose ops only read (the
// catch-up reader's get-msg): the report draws them as reads, beside kv's
// get.
func RegisterReadTypes(ts ...OpType) {
	RegisterOpTypes(ts...)
	typesMu.Lock()
	defer typesMu.Unlock()
	for _, t := range ts {
		reads[t] = true
	}
}

// IsRead reports whether ops of type t only read: kv's get, or a type
// registered with RegisterReadTypes.
func IsRead(t OpType) bool {
	if t == Get {
		return true
	}
	typesMu.RLock()
	defer typesMu.RUnlock()
	return reads[t]
}

func registered(t OpType) bool {
	typesMu.RLock()
	defer typesMu.RUnlock()
	return types[t]
}

// knownTypes lists the valid types for an error message.
func knownTypes() string {
	typesMu.RLock()
	defer typesMu.RUnlock()
	out := []string{"get", "update", "put", "create", "delete", "purge", "fault"}
	var more []string
	for t := range types {
		more = append(more, string(t))
	}
	sort.Strings(more)
	out = append(out, more...)
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

// Validate reports what makes a stream entry unusable: no sequence, no key,
// or an unknown operation.
func (e Entry) Validate() error {
	switch {
	case e.Seq == 0:
		return errors.New("stream entry without a sequence")
	case e.Key == "":
		return fmt.Errorf("stream entry %d without a key", e.Seq)
	}
	switch e.Operation {
	case "", "del", "purge":
	default:
		return fmt.Errorf("stream entry %d: unknown operation %q (want empty, del or purge)", e.Seq, e.Operation)
	}
	return nil
}

// ValidateOps validates every op; the error names the op's line of
// history.jsonl.
func ValidateOps(ops []Op) error { return validateOps("history.jsonl", ops) }

func validateOps(file string, ops []Op) error {
	for i := range ops {
		if err := ops[i].Validate(); err != nil {
			return &LineError{File: file, Line: i + 1, Err: err}
		}
	}
	return nil
}

// ValidateStream validates every entry and that no sequence appears twice;
// the error names the entry's line of stream.jsonl.
func ValidateStream(entries []Entry) error { return validateStream("stream.jsonl", entries) }

func validateStream(file string, entries []Entry) error {
	var seen map[uint64]int // built only once the entries are out of order
	for i := range entries {
		e := &entries[i]
		if err := e.Validate(); err != nil {
			return &LineError{File: file, Line: i + 2, Err: err}
		}
		if seen == nil {
			if i == 0 || e.Seq > entries[i-1].Seq {
				continue // increasing so far: no sequence repeated
			}
			seen = make(map[uint64]int, len(entries))
			for j := range entries[:i] {
				seen[entries[j].Seq] = j
			}
		}
		if j, ok := seen[e.Seq]; ok {
			return &LineError{File: file, Line: i + 2, Err: fmt.Errorf("sequence %d appears twice (also line %d)", e.Seq, j+2)}
		}
		seen[e.Seq] = i
	}
	return nil
}

// Validate validates the ops and the stream.
func (h History) Validate() error {
	if err := ValidateOps(h.Ops); err != nil {
		return err
	}
	return ValidateStream(h.Stream)
}
