package kvcheck

import (
	"math"
	"sort"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// A brute-force linearizability oracle for small histories, written from
// the spec (model.go's doc) without any of the checker's code: it settles
// indeterminate writes from the stream itself, searches every order real
// time allows (ties concurrent), and gives an unsettled write's unknown
// revision every value that could matter. It is exact where the checker's
// model over-approximates (the model lets an unsettled write's revision
// differ from one op to the next), so it must agree with porcupine on
// complete streams and may only be stricter on incomplete ones.

// bfOp is one op of a key as the oracle sees it.
type bfOp struct {
	idx       int
	typ       history.OpType
	get       bool
	notFound  bool
	rejected  bool // update: 10071, needs another revision; create: key_exists, needs a value
	unsettled bool // a timed-out write the stream does not settle: may or may not have happened
	value     string
	expected  uint64
	rev       uint64 // gets: revision read; writes: revision written (unknown if unsettled)
	invoke    int64
	complete  int64 // MaxInt64: may take effect any time after invoke
}

type bfState struct {
	rev    uint64
	value  string
	exists bool
}

// bfPrepare turns a history into each key's oracle ops.
func bfPrepare(h history.History) map[string][]bfOp {
	inStream := map[string]history.Entry{}
	for _, e := range h.Stream {
		if _, seen := inStream[e.Value]; !seen && e.Operation == "" {
			inStream[e.Value] = e
		}
	}
	// A write found in the stream at S took effect before any write with a
	// higher revision was acknowledged.
	ackAfter := func(rev uint64) int64 {
		t := int64(math.MaxInt64)
		for _, o := range h.Ops {
			if o.IsWrite() && o.Outcome == history.OK && o.Rev > rev {
				t = min(t, o.Complete)
			}
		}
		return t
	}
	out := map[string][]bfOp{}
	for i, o := range h.Ops {
		if o.Type == history.Fault {
			continue
		}
		b := bfOp{idx: i, typ: o.Type, value: o.Value, expected: o.ExpectedRev, rev: o.Rev, invoke: o.Invoke, complete: o.Complete}
		switch {
		case o.Type == history.Get:
			if o.Outcome != history.OK {
				continue
			}
			b.get, b.notFound = true, o.Err == history.ErrNotFound || o.Rev == 0
		case o.Outcome == history.Fail:
			switch {
			case o.Type == history.Update && o.Err == history.ErrWrongLastSeq,
				o.Type == history.Create && (o.Err == history.ErrKeyExists || o.Err == history.ErrWrongLastSeq):
				b.rejected = true
			default:
				continue // allowed in any state
			}
		case o.Outcome == history.Info:
			b.rev, b.complete = 0, math.MaxInt64
			if e, ok := inStream[o.Value]; ok && e.Key == o.Key {
				b.rev = e.Seq
			} else {
				for _, g := range h.Ops {
					if g.Type == history.Get && g.Outcome == history.OK && g.Rev > 0 && g.Key == o.Key && g.Value == o.Value {
						b.rev = g.Rev
						break
					}
				}
			}
			switch {
			case b.rev > 0:
				if t := ackAfter(b.rev); t >= o.Invoke {
					b.complete = t
				}
			case h.StreamComplete:
				continue // never happened
			default:
				b.unsettled = true
			}
		}
		out[o.Key] = append(out[o.Key], b)
	}
	return out
}

// bfStep returns the states s can move to with o; cands are the revisions
// an unsettled write may take.
func bfStep(s bfState, o *bfOp, cands []uint64) []bfState {
	switch {
	case o.get && o.notFound:
		if !s.exists {
			return []bfState{s}
		}
	case o.get:
		if s.exists && s.rev == o.rev && s.value == o.value {
			return []bfState{s}
		}
	case o.rejected && o.typ == history.Update:
		if s.rev != o.expected {
			return []bfState{s}
		}
	case o.rejected:
		if s.exists {
			return []bfState{s}
		}
	case o.unsettled:
		out := []bfState{s} // it did not happen
		floor := s.rev
		switch o.typ {
		case history.Update:
			if s.rev != o.expected {
				return out
			}
		case history.Create:
			if s.exists {
				return out
			}
		}
		for _, r := range cands {
			if r > floor {
				out = append(out, bfState{rev: r, value: o.value, exists: true})
			}
		}
		return out
	default: // a write that took effect at o.rev
		ok := o.rev > s.rev
		switch o.typ {
		case history.Update:
			ok = s.rev == o.expected && o.rev > o.expected
		case history.Create:
			ok = ok && !s.exists
		}
		if ok {
			return []bfState{{rev: o.rev, value: o.value, exists: true}}
		}
	}
	return nil
}

// bfLinearizable searches every order of the ops that real time allows.
func bfLinearizable(ops []bfOp) bool {
	n := len(ops)
	if n > 62 {
		panic("bfLinearizable: too many ops")
	}
	// An unsettled write's revision matters only by equality with, or order
	// against, the revisions the key's ops name: try each, each plus one,
	// and one above the state's.
	var rel []uint64
	for _, o := range ops {
		rel = append(rel, o.rev, o.rev+1, o.expected, o.expected+1)
	}
	pred := make([]uint64, n)
	for i := range ops {
		for j := range ops {
			if precedesOracle(ops[j].complete, ops[i].invoke) {
				pred[i] |= 1 << j
			}
		}
	}
	type memoKey struct {
		done uint64
		s    bfState
	}
	failed := map[memoKey]bool{}
	full := uint64(1)<<n - 1
	var search func(done uint64, s bfState) bool
	search = func(done uint64, s bfState) bool {
		if done == full {
			return true
		}
		k := memoKey{done, s}
		if failed[k] {
			return false
		}
		cands := append(append([]uint64(nil), rel...), s.rev+1)
		sort.Slice(cands, func(a, b int) bool { return cands[a] < cands[b] })
		for i := range ops {
			if done&(1<<i) != 0 || pred[i]&^done != 0 {
				continue
			}
			for _, next := range bfStep(s, &ops[i], cands) {
				if search(done|1<<i, next) {
					return true
				}
			}
		}
		failed[k] = true
		return false
	}
	return search(0, bfState{})
}

// precedesOracle is the real-time rule, restated so that the oracle shares
// no code with the checker.
func precedesOracle(complete, invoke int64) bool { return complete < invoke }
