package kvcheck

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// chunkKey cuts one key's ops into pieces that can be checked one by one,
// each starting with a seed op that sets the state the previous pieces end
// in. The verdict is the same as for the key's whole history.
//
// A cut at time t (just before some op is invoked) is taken only when no
// write is in flight at t and every write before t has a lower revision
// than every write after it. Writes are linearized in revision order (each
// needs R > state.rev), so the state at t is then known: the highest
// revision written before t, V. Ops in flight at t are placed where they
// must go: a get of a revision below V before the cut, a get of V or above,
// a 10071 rejection expecting another revision than V and a key_exists
// rejection after it (they can all take effect at t). A 10071 rejection
// expecting exactly V, in flight at t, forbids the cut. An unsettled
// indeterminate write never completes, so no cut follows it.
func chunkKey(ops []*linOp, minChunk int) [][]*linOp {
	if len(ops) == 0 {
		return nil
	}
	slices.SortStableFunc(ops, func(a, b *linOp) int { return cmp.Compare(a.call, b.call) })
	// after[i]: the lowest revision pinned by a write invoked at or after ops[i].
	ap := afterPool.Get().(*[]uint64)
	defer afterPool.Put(ap)
	after := slices.Grow((*ap)[:0], len(ops)+1)[:len(ops)+1]
	*ap = after
	after[len(ops)] = math.MaxUint64
	for i := len(ops) - 1; i >= 0; i-- {
		after[i] = after[i+1]
		if ops[i].pinned() && ops[i].rev < after[i] {
			after[i] = ops[i].rev
		}
	}
	var pieces [][]*linOp
	// The pieces' ops, one array for most keys: each op is in one piece.
	buf := make([]*linOp, 0, len(ops)+8)
	seed := kvState{}
	var v uint64       // highest revision written so far
	var vValue string  // its value
	vExists := false   // whether that write left a value (not a marker)
	var cur []*linOp   // the current piece, without its seed
	var open []*linOp  // ops of cur that may still be in flight
	var later []*linOp // scratch: open ops that go after a cut
	emit := func(ops []*linOp) {
		minCall := int64(math.MaxInt64)
		for _, o := range ops {
			minCall = min(minCall, o.call)
		}
		s := &linOp{kind: kSeed, idx: -1, key: ops[0].key, value: seed.value, rev: seed.rev, exists: seed.exists,
			call: minCall - 1, ret: minCall - 1}
		at := len(buf)
		buf = append(append(buf, s), ops...)
		pieces = append(pieces, buf[at:len(buf):len(buf)])
	}
	for i, o := range ops {
		t := o.call
		// Drop from open the ops that completed before t.
		n := 0
		for _, x := range open {
			if x.ret >= t {
				open[n] = x
				n++
			}
		}
		open = open[:n]
		if len(cur) >= minChunk && t > ops[i-1].call && after[i] > v {
			later = later[:0]
			cut := true
			for _, x := range open {
				switch {
				case x.isWrite() && (x.out == oOK || x.out == oUnknown):
					cut = false
				case x.kind == kGet && x.out == oOK && x.rev < v:
				case x.kind == kGet && x.out == oNotFound && x.rev < v:
				case x.out == oWrongSeq && x.expected == v:
					cut = false
				default: // gets of v or later, other rejections
					later = append(later, x)
				}
				if !cut {
					break
				}
			}
			if cut {
				if len(later) > 0 {
					move := map[*linOp]bool{}
					for _, x := range later {
						move[x] = true
					}
					kept := cur[:0:0]
					for _, x := range cur {
						if !move[x] {
							kept = append(kept, x)
						}
					}
					cur = kept
				}
				if len(cur) > 0 {
					emit(cur)
				}
				cur = append([]*linOp(nil), later...)
				open = append(open[:0], later...)
				seed = kvState{rev: v, value: vValue, exists: vExists}
			}
		}
		cur = append(cur, o)
		open = append(open, o)
		if o.pinned() && o.rev > v {
			v, vValue, vExists = o.rev, o.value, o.kind != kDelete
		}
	}
	if len(cur) > 0 {
		emit(cur)
	}
	return pieces
}

// afterPool holds chunkKey's revision bounds, reused across keys.
var afterPool = sync.Pool{New: func() any { return new([]uint64) }}
