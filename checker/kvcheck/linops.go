package kvcheck

import (
	"math"
	"sort"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// linBuilder turns a history's ops into model ops a few keys at a time, so
// that the linearizability check holds the model ops of one batch of keys
// only (see linBatchOps). What every key shares is built once: the
// indeterminate writes the stream settles, and the ack bounds.
type linBuilder struct {
	ops  []history.Op
	h    *history.History // for History.Line
	info map[int32]infoWrite
	// acks[i]: the earliest ack of an ok write with revision >=
	// acks[i].Rev (history.Split.Acks).
	acks []history.Ack
	// arena, ptrs and valid hold the model ops of the batch being checked
	// (see planBatch).
	arena []linOp
	ptrs  []*linOp
	valid []bool
}

func newLinBuilder(h *history.History) *linBuilder {
	b := &linBuilder{ops: h.Ops, h: h, info: map[int32]infoWrite{}}
	writes, infos := 0, 0
	for i := range h.Ops {
		if o := &h.Ops[i]; isClientOp(o) && o.IsWrite() {
			writes++
			if o.Outcome == history.Info {
				infos++
			}
		}
	}
	if infos > 0 { // the stream's index is for settling indeterminate writes only
		b.info = resolveInfo(h.Ops, newStreamIndex(h), h.StreamComplete)
	}
	if h.Part != nil {
		// Revisions are shared by every key: a part bounds its writes by
		// the whole history's acknowledgements, as the whole check does.
		b.acks = h.Part.Acks
		return b
	}
	b.acks = make([]history.Ack, 0, writes)
	for i := range h.Ops {
		o := &h.Ops[i]
		if isClientOp(o) && o.IsWrite() && o.Outcome == history.OK {
			b.acks = append(b.acks, history.Ack{Rev: o.Rev, Complete: o.Complete})
		}
	}
	history.EarliestAcks(b.acks)
	return b
}

// returnBound is the latest an indeterminate write settled at rev can
// have taken effect: before the first ack of a later revision (if that ack
// came after it was invoked).
func (b *linBuilder) returnBound(rev uint64, invoke int64) int64 {
	i := sort.Search(len(b.acks), func(i int) bool { return b.acks[i].Rev > rev })
	if i == len(b.acks) || b.acks[i].Complete < invoke {
		return math.MaxInt64
	}
	return b.acks[i].Complete
}

// build makes the model ops of the ops at idx (one key's, in history
// order), tallying what it dropped and how indeterminate writes were
// settled.
// all and out are the memory to build in (allocated if short of len(idx)):
// all never grows, so the pointers in out stay valid.
func (b *linBuilder) build(idx []int32, all []linOp, out []*linOp, counts map[string]int) []*linOp {
	if cap(all) < len(idx) || cap(out) < len(idx) {
		all, out = make([]linOp, 0, len(idx)), make([]*linOp, 0, len(idx))
	}
	all, out = all[:0], out[:0]
	for _, i := range idx {
		all = append(all, linOp{})
		if b.convert(i, &all[len(all)-1], counts) {
			out = append(out, &all[len(all)-1])
		} else {
			all = all[:len(all)-1]
		}
	}
	return out
}

// convert writes the model op of client op i to l, or returns false when
// it constrains nothing (counted). It writes in place: the batch's memory
// is where the model op goes, and a copy of it costs as much as the rest.
func (b *linBuilder) convert(i int32, l *linOp, counts map[string]int) bool {
	o := &b.ops[i]
	*l = linOp{client: int32(o.Client), idx: int32(i), line: int32(b.h.Line(int(i))), key: o.Key, value: o.Value,
		expected: o.ExpectedRev, rev: o.Rev, call: o.Invoke, ret: o.Complete, ocall: o.Invoke, oret: o.Complete}
	switch o.Type {
	case history.Get:
		if o.Outcome != history.OK {
			counts["dropped_reads"]++
			return false
		}
		l.kind = kGet
		if o.Err == history.ErrNotFound || o.Rev == 0 {
			l.out = oNotFound
		}
	case history.Update, history.Put, history.Create, history.Delete, history.Purge:
		l.kind = kUpdate
		switch o.Type {
		case history.Put:
			l.kind = kPut
		case history.Create:
			l.kind = kCreate
		case history.Delete, history.Purge:
			l.kind = kDelete
		}
		switch o.Outcome {
		case history.OK:
			l.out = oOK
		case history.Fail:
			switch {
			case o.Type == history.Update && o.Err == history.ErrWrongLastSeq:
				l.out = oWrongSeq
			case o.Type == history.Create && (o.Err == history.ErrKeyExists || o.Err == history.ErrWrongLastSeq):
				l.out = oExists
			default: // allowed in any state: nothing to check
				counts["dropped_failed"]++
				return false
			}
		default:
			r := b.info[i]
			l.res = r.how
			switch r.how {
			case resStream, resObserved:
				counts["info_applied"]++
				l.out, l.rev = oOK, r.rev
				l.ret = b.returnBound(r.rev, o.Invoke)
			case resNotApplied:
				counts["info_not_applied"]++
				return false
			default:
				counts["info_unresolved"]++
				l.out, l.ret = oUnknown, math.MaxInt64
			}
		}
	default:
		return false
	}
	l.call, l.ret = scaleCall(l.call, l.isWrite() && (l.out == oOK || l.out == oUnknown)), scaleRet(l.ret)
	return true
}

// buildLinOps turns the whole history into model ops, grouped by key.
func buildLinOps(h *history.History, counts map[string]int) map[string][]*linOp {
	b := newLinBuilder(h)
	idx, keys := byKey(h.Ops)
	perKey := map[string][]*linOp{}
	for _, k := range keys {
		if ops := b.build(idx[k], nil, nil, counts); len(ops) > 0 {
			perKey[k] = ops
			counts["ops_checked"] += len(ops)
		}
	}
	return perKey
}
