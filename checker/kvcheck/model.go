package kvcheck

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"
)

// The porcupine model of one KV key, as plain data. A state is the key's
// (revision, value, exists); every op is a *linOp used as both porcupine
// input and output.
//
//   - get ok returns (rev, value), or not found, and must equal the state.
//     Not found with revision 0 needs a key never written; not found with
//     revision R (a delete or purge marker; value is the marker's id) needs
//     the key absent at R.
//   - delete or purge ok with rev R needs R > state.rev and leaves the key
//     absent at R (a marker is a write like any other: it has a revision).
//   - update(expected, value) ok with rev R needs state.rev == expected and
//     R > expected; failed with 10071 it needs state.rev != expected; failed
//     with 10164 it is allowed in any state (such ops are dropped before the
//     check, as are other definite failures that constrain nothing).
//   - put(value) ok with R needs R > state.rev.
//   - create(value) ok with R needs !exists and R > state.rev (after a
//     delete nats.go retries with the marker's revision); failed with
//     key_exists it needs a key that was ever written (exists, or absent
//     after a marker): the retry over a marker can itself be rejected when
//     another marker or value raced it.
//   - an indeterminate write settled by the stream (or by a get that
//     returned its value) is an ok write at that revision; one the stream
//     proves absent is dropped; one that cannot be settled (incomplete
//     stream) may or may not have happened, with an unknown revision. Only
//     such ops make the model nondeterministic.
//   - a seed op sets the state; it starts every sub-history (see chunkKey).

type opKind uint8

const (
	kSeed opKind = iota
	kGet
	kUpdate
	kPut
	kCreate
	kDelete // a delete or purge marker: the key is absent from then on
)

type outKind uint8

const (
	oOK       outKind = iota
	oNotFound         // get: no value
	oWrongSeq         // update rejected with 10071
	oInflight         // update rejected with 10164
	oExists           // create rejected: key exists
	oUnknown          // indeterminate write that could not be settled
)

type linOp struct {
	kind     opKind
	out      outKind
	res      resolution // for indeterminate writes
	exists   bool       // seed only
	client   int32
	idx      int32 // index in History.Ops; -1 for seeds
	key      string
	value    string
	expected uint64
	rev      uint64 // ok: the revision returned; seed: the state's revision
	call     int64  // the interval porcupine sees (narrowed by tighten)
	ret      int64
	ocall    int64 // the op's real interval
	oret     int64
	bind     [2]*linOp // pinned writes: the ops that set the bounds tighten gave it
	piece    int32     // 1 + its piece's number within the key (planJobs); 0: in none
	line     int32     // its line in the whole history.jsonl (History.Line)
}

func (o *linOp) isWrite() bool {
	return o.kind == kUpdate || o.kind == kPut || o.kind == kCreate || o.kind == kDelete
}

// pinned reports whether the op is a write known to have happened at o.rev.
func (o *linOp) pinned() bool { return o.isWrite() && o.out == oOK }

// kvState is the model state. When unknown is set, the key holds value
// with some revision >= rev that no op has revealed yet.
type kvState struct {
	rev     uint64
	value   string
	exists  bool
	unknown bool
}

// kvSet is a set of possible states (only after unsettled writes), kept
// sorted and without duplicates. A set of one is always a plain kvState.
type kvSet []kvState

func (s kvState) matches(rev uint64) bool {
	if s.unknown {
		return rev >= s.rev
	}
	return s.rev == rev
}

// stepOne steps a state with a deterministic op.
func stepOne(s kvState, o *linOp) (bool, kvState) {
	switch o.kind {
	case kSeed:
		return true, kvState{rev: o.rev, value: o.value, exists: o.exists}
	case kGet:
		if o.out == oNotFound {
			if o.rev == 0 {
				return !s.exists && s.rev == 0, s
			}
			if !s.exists && s.matches(o.rev) && s.value == o.value {
				return true, kvState{rev: o.rev, value: o.value}
			}
			return false, s
		}
		if s.exists && s.value == o.value && s.matches(o.rev) {
			return true, kvState{rev: o.rev, value: o.value, exists: true}
		}
		return false, s
	case kUpdate:
		switch o.out {
		case oOK:
			if s.matches(o.expected) && o.rev > o.expected {
				return true, kvState{rev: o.rev, value: o.value, exists: true}
			}
			return false, s
		case oWrongSeq:
			return s.unknown || s.rev != o.expected, s
		case oInflight:
			return true, s
		}
	case kPut:
		if o.out == oOK && o.rev > s.rev {
			return true, kvState{rev: o.rev, value: o.value, exists: true}
		}
		return false, s
	case kCreate:
		switch o.out {
		case oOK:
			if !s.exists && o.rev > s.rev {
				return true, kvState{rev: o.rev, value: o.value, exists: true}
			}
			return false, s
		case oExists:
			return s.exists || s.rev != 0, s
		}
	case kDelete:
		if o.out == oOK && o.rev > s.rev {
			return true, kvState{rev: o.rev, value: o.value}
		}
		return false, s
	}
	return false, s
}

// stepAll appends to dst every state s can step to with o.
func stepAll(s kvState, o *linOp, dst []kvState) []kvState {
	if o.out != oUnknown {
		if ok, n := stepOne(s, o); ok {
			dst = append(dst, n)
		}
		return dst
	}
	dst = append(dst, s) // it did not happen
	applied := kvState{value: o.value, exists: true, unknown: true}
	switch o.kind {
	case kUpdate:
		if !s.matches(o.expected) {
			return dst
		}
		applied.rev = o.expected + 1
	case kPut:
		applied.rev = s.rev + 1
	case kDelete:
		applied.rev, applied.exists = s.rev+1, false
	case kCreate:
		if s.exists {
			return dst
		}
		applied.rev = s.rev + 1
	default:
		return dst
	}
	return append(dst, applied)
}

func lessState(a, b kvState) bool {
	if a.rev != b.rev {
		return a.rev < b.rev
	}
	if a.exists != b.exists {
		return !a.exists
	}
	if a.unknown != b.unknown {
		return !a.unknown
	}
	return a.value < b.value
}

func pack(states []kvState) (bool, any) {
	switch len(states) {
	case 0:
		return false, nil
	case 1:
		return true, states[0]
	}
	sort.Slice(states, func(a, b int) bool { return lessState(states[a], states[b]) })
	out := states[:1]
	for _, s := range states[1:] {
		if s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	if len(out) == 1 {
		return true, out[0]
	}
	return true, kvSet(out)
}

func modelStep(state, input, _ any) (bool, any) {
	o := input.(*linOp)
	switch s := state.(type) {
	case kvState:
		if o.out != oUnknown {
			ok, n := stepOne(s, o)
			return ok, n
		}
		return pack(stepAll(s, o, nil))
	case kvSet:
		var next []kvState
		for _, x := range s {
			next = stepAll(x, o, next)
		}
		return pack(next)
	}
	panic(fmt.Sprintf("checker: unexpected model state %T", state))
}

func modelEqual(a, b any) bool {
	switch x := a.(type) {
	case kvState:
		y, ok := b.(kvState)
		return ok && x == y
	case kvSet:
		y, ok := b.(kvSet)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return false
}

func hashState(s kvState) uint64 {
	h := s.rev*0x9E3779B97F4A7C15 + uint64(len(s.value))
	if s.exists {
		h ^= 1 << 62
	}
	if s.unknown {
		h ^= 1 << 61
	}
	return h
}

func modelHash(state any) uint64 {
	switch s := state.(type) {
	case kvState:
		return hashState(s)
	case kvSet:
		var h uint64
		for _, x := range s {
			h ^= hashState(x)
		}
		return h
	}
	return 0
}

func describeState(state any) string {
	switch s := state.(type) {
	case kvState:
		switch {
		case !s.exists && s.rev == 0:
			return "absent"
		case !s.exists:
			return fmt.Sprintf("deleted by %q @ rev %d", s.value, s.rev)
		case s.unknown:
			return fmt.Sprintf("%q @ rev >=%d (unsettled write)", s.value, s.rev)
		}
		return fmt.Sprintf("%q @ rev %d", s.value, s.rev)
	case kvSet:
		parts := make([]string, len(s))
		for i, x := range s {
			parts[i] = describeState(x)
		}
		return "one of {" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(state)
}

func describeOp(input, _ any) string {
	o := input.(*linOp)
	switch o.kind {
	case kSeed:
		if !o.exists {
			return "start: absent"
		}
		return fmt.Sprintf("start: %q @ rev %d", o.value, o.rev)
	case kGet:
		if o.out == oNotFound {
			if o.rev != 0 {
				return fmt.Sprintf("get -> not found (marker %q @ rev %d)", o.value, o.rev)
			}
			return "get -> not found"
		}
		return fmt.Sprintf("get -> %q @ rev %d", o.value, o.rev)
	}
	var call string
	switch o.kind {
	case kUpdate:
		call = fmt.Sprintf("update(%q, expect %d)", o.value, o.expected)
	case kPut:
		call = fmt.Sprintf("put(%q)", o.value)
	case kCreate:
		call = fmt.Sprintf("create(%q)", o.value)
	case kDelete:
		call = fmt.Sprintf("delete(%q)", o.value)
	}
	switch o.out {
	case oOK:
		if o.res == resStream || o.res == resObserved {
			return fmt.Sprintf("%s -> timed out, %s @ rev %d", call, o.res, o.rev)
		}
		return fmt.Sprintf("%s -> rev %d", call, o.rev)
	case oWrongSeq:
		return call + " -> wrong last sequence (10071)"
	case oInflight:
		return call + " -> wrong last sequence (10164)"
	case oExists:
		return call + " -> key exists"
	case oUnknown:
		return call + " -> timed out, unsettled"
	}
	return call
}

func describeMeta(m any) string {
	o, ok := m.(*linOp)
	if !ok || o.idx < 0 {
		return ""
	}
	d := fmt.Sprintf("client %d, history line %d, ran %s-%s", o.client, o.line, fmtNs(o.ocall), fmtNs(o.oret))
	if o.call/4 != o.ocall || (o.ret != math.MaxInt64 && o.ret/4 != o.oret) {
		d += fmt.Sprintf(", must take effect within %s-%s", fmtT(o.call), fmtT(o.ret))
	}
	return d
}

// kvModel is the porcupine model. Its Partition cuts the history by key,
// narrows intervals (tighten, on copies of the ops) and cuts each key at
// points where its state is known (chunkKey), starting each piece with a
// seed op, so porcupine.CheckOperations(kvModel(n), ops) works on a whole
// history; the checker drives the same pieces itself to get a verdict, a
// time bound and a visualization per piece.
func kvModel(chunkOps int) porcupine.Model {
	m := kvPieceModel()
	m.Partition = func(h []porcupine.Operation) [][]porcupine.Operation {
		perKey := map[string][]*linOp{}
		var keys []string
		for _, op := range h {
			o := *op.Input.(*linOp)
			if perKey[o.key] == nil {
				keys = append(keys, o.key)
			}
			perKey[o.key] = append(perKey[o.key], &o)
		}
		sort.Strings(keys)
		var out [][]porcupine.Operation
		for _, k := range keys {
			ops, _ := tighten(perKey[k])
			for _, c := range chunkKey(ops, chunkOps) {
				out = append(out, toOperations(c, false))
			}
		}
		return out
	}
	return m
}

// kvPieceModel is the model for one piece (no partition function).
func kvPieceModel() porcupine.Model {
	return porcupine.Model{
		Init:                      func() any { return kvState{} },
		Step:                      modelStep,
		Equal:                     modelEqual,
		Hash:                      modelHash,
		DescribeOperation:         describeOp,
		DescribeState:             describeState,
		DescribeOperationMetadata: describeMeta,
	}
}

// toOperations turns a piece into porcupine operations. For a
// visualization, clients are renumbered densely (the seed gets row 0).
func toOperations(piece []*linOp, dense bool) []porcupine.Operation {
	rows := map[int32]int{}
	if dense {
		var ids []int
		for _, o := range piece {
			if o.idx >= 0 {
				if _, ok := rows[o.client]; !ok {
					rows[o.client] = 0
					ids = append(ids, int(o.client))
				}
			}
		}
		sort.Ints(ids)
		for i, id := range ids {
			rows[int32(id)] = i + 1
		}
	}
	out := make([]porcupine.Operation, len(piece))
	for i, o := range piece {
		cid := int(o.client)
		if dense {
			cid = 0
			if o.idx >= 0 {
				cid = rows[o.client]
			}
		}
		out[i] = porcupine.Operation{ClientId: cid, Input: o, Output: o, Call: o.call, Return: o.ret, Metadata: o}
	}
	return out
}
