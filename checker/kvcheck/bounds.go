package kvcheck

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
)

// Porcupine's search blows up when many clients share a key: with k gets
// of one revision in flight around a write, it may try all 2^k orders of
// linearizing some of them before the write. Revisions make most of that
// search unnecessary, so before porcupine sees a key its ops' intervals are
// narrowed to what every linearization must satisfy anyway:
//
// The model orders the writes of known revision (pinned writes) by
// revision: each needs R > state.rev, and state.rev never decreases. A get
// of revision r (value unique, so of one write w_r) takes effect after w_r
// and before the next pinned write w_r+. So, with p(x) an op's point:
//
//	p(w) >= call of w, of the previous pinned write, and of every get of
//	        the previous revision (those must come first);
//	p(w) <= return of w, of the next pinned write, and of every get of w's
//	        revision (those must come after);
//	p(g) is within [lower bound of w_r, upper bound of w_r+].
//
// Narrowing an op's interval to such bounds removes no linearization, so
// the verdict is unchanged. When the bounds of an op are empty no
// linearization exists at all: the op is refuted and the key is not
// linearizable; its interval is then left as it was.
//
// Each bound is some other op's call or return, so the narrowed history is
// equivalent to the original one, exactly: if X must follow the op whose
// call set X's lower bound and Y must precede the op whose return set Y's
// upper bound, then a linearization putting X before Y with Y's new return
// before X's new call already broke real time in the original history.
//
// A 10071 rejection expecting revision V needs a state other than V, so it
// is refuted when it started strictly after V's write must have taken
// effect and ended strictly before the next write could.

// refutation is an op that no linearization can place.
type refutation struct {
	op      *linOp
	why     string
	related []*linOp // the ops whose intervals set the bounds
}

// An indeterminate write the stream cannot settle is open-ended: it may take
// effect any time after its call. For an update that is not so: it needs the
// revision it expected, so it can only take effect before the first pinned
// write of a higher revision; a create needs the key absent, so before the
// first pinned write. Its interval ends there (not taking effect is allowed
// anywhere, so that loses nothing), and if it starts after that point it
// can never take effect and is dropped. Without this a single timeout would
// forbid cutting the rest of the key's history into pieces.

// tighten narrows the intervals of one key's ops in place and returns the
// ops to check (without unsettled writes that cannot take effect) and the
// ops it refutes. Keys with two pinned writes of one revision are left alone
// (porcupine will reject them).
func tighten(ops []*linOp) ([]*linOp, []refutation) {
	sc := tightPool.Get().(*tightScratch)
	defer sc.put()
	ws := sc.ws[:0]
	for _, o := range ops {
		if o.pinned() {
			ws = append(ws, o)
		}
	}
	sc.ws = ws
	slices.SortFunc(ws, func(a, b *linOp) int { return cmp.Compare(a.rev, b.rev) })
	for i := 1; i < len(ws); i++ {
		if ws[i].rev == ws[i-1].rev {
			return ops, nil
		}
	}
	m := len(ws)
	// Gets by version: 0 is "absent" (before the first pinned write), v is
	// the revision written by ws[v-1]; -1 for gets of nothing known.
	version := func(o *linOp) int {
		if o.kind != kGet {
			return -1
		}
		if o.out == oNotFound && o.rev == 0 {
			return 0
		}
		j := sort.Search(m, func(j int) bool { return ws[j].rev >= o.rev })
		if j < m && ws[j].rev == o.rev && ws[j].value == o.value {
			return j + 1
		}
		return -1
	}
	// The latest-invoked and earliest-returning get of each version.
	lastCall, firstRet := sc.bys(&sc.lastCall, m+1), sc.bys(&sc.firstRet, m+1)
	sc.vers = slices.Grow(sc.vers[:0], len(ops))[:len(ops)]
	vers := sc.vers
	for i, o := range ops {
		v := version(o)
		vers[i] = int32(v)
		if v >= 0 {
			if lastCall[v] == nil || o.call > lastCall[v].call {
				lastCall[v] = o
			}
			if firstRet[v] == nil || o.ret < firstRet[v].ret {
				firstRet[v] = o
			}
		}
	}
	// lo[j], hi[j]: the bounds of ws[j]'s point, and the ops that set them.
	sc.lo, sc.hi = slices.Grow(sc.lo[:0], m)[:m], slices.Grow(sc.hi[:0], m)[:m]
	lo, hi := sc.lo, sc.hi
	loBy, hiBy := sc.bys(&sc.loBy, m), sc.bys(&sc.hiBy, m)
	var cur int64 = math.MinInt64
	var by *linOp
	for j := 0; j < m; j++ {
		if ws[j].call > cur {
			cur, by = ws[j].call, ws[j]
		}
		if g := lastCall[j]; g != nil && g.call > cur {
			cur, by = g.call, g
		}
		// A bound from a get's call moves to the write slot of the same
		// instant (see scaleCall): same instant, but tried after the get.
		cur |= 1
		lo[j], loBy[j] = cur, by
	}
	cur, by = math.MaxInt64, nil
	for j := m - 1; j >= 0; j-- {
		if ws[j].ret < cur {
			cur, by = ws[j].ret, ws[j]
		}
		if g := firstRet[j+1]; g != nil && g.ret < cur {
			cur, by = g.ret, g
		}
		hi[j], hiBy[j] = cur, by
	}
	var out []refutation
	for j, w := range ws {
		w.bind = [2]*linOp{loBy[j], hiBy[j]}
		if lo[j] > hi[j] {
			out = append(out, refutation{op: w, related: []*linOp{loBy[j], hiBy[j]}, why: fmt.Sprintf(
				"revision %d cannot take effect before %s, when %s started, yet had to by %s, when %s ended",
				w.rev, fmtT(lo[j]), opName(loBy[j]), fmtT(hi[j]), opName(hiBy[j]))})
			continue
		}
		w.call, w.ret = lo[j], hi[j]
	}
	for i, o := range ops {
		v := int(vers[i])
		if v < 0 {
			continue
		}
		c, r := o.call, o.ret
		if v >= 1 {
			c = max(c, lo[v-1])
		}
		if v < m {
			r = min(r, hi[v])
		}
		if c > r {
			rf := refutation{op: o}
			switch {
			case v >= 1 && c > o.ret:
				rf.related = []*linOp{loBy[v-1]}
				rf.why = fmt.Sprintf("it ended at %s but revision %d cannot take effect before %s, when %s started",
					fmtT(o.ret), ws[v-1].rev, fmtT(c), opName(loBy[v-1]))
			case v < m && c > o.call:
				// Both ends moved: the proof needs the op that set each, which
				// may sit in other pieces (the witness spans them).
				rf.related = []*linOp{loBy[v-1], hiBy[v]}
				rf.why = fmt.Sprintf("revision %d, which it read, cannot take effect before %s, when %s started, but revision %d had taken effect by %s, when %s ended",
					ws[v-1].rev, fmtT(c), opName(loBy[v-1]), ws[v].rev, fmtT(r), opName(hiBy[v]))
			case v < m:
				rf.related = []*linOp{hiBy[v]}
				rf.why = fmt.Sprintf("it started at %s but revision %d had taken effect by %s, when %s ended",
					fmtT(o.call), ws[v].rev, fmtT(r), opName(hiBy[v]))
			default: // only an op that ends before it starts, which validation rejects first
				rf.why = fmt.Sprintf("it ended at %s, before it started at %s", fmtT(o.ret), fmtT(o.call))
			}
			out = append(out, rf)
			continue
		}
		o.call, o.ret = c, r
	}
	// Unsettled writes.
	unsettled := false
	var kept []*linOp // ops without the dropped ones, once one is dropped
	for i, o := range ops {
		if o.out != oUnknown {
			if kept != nil {
				kept = append(kept, o)
			}
			continue
		}
		j := m // the first pinned write that ends its chance
		switch o.kind {
		case kUpdate:
			j = sort.Search(m, func(j int) bool { return ws[j].rev > o.expected })
		case kCreate:
			j = 0
		}
		if j < m {
			if o.call > hi[j] {
				if kept == nil {
					kept = append(make([]*linOp, 0, len(ops)-1), ops[:i]...)
				}
				continue // can never take effect
			}
			o.ret = min(o.ret, hi[j])
		}
		unsettled = true
		if kept != nil {
			kept = append(kept, o)
		}
	}
	if kept != nil {
		ops = kept
	}
	// Rejections: only when no unsettled write could change the state
	// between two pinned writes.
	if unsettled {
		return ops, out
	}
	for _, o := range ops {
		if o.kind != kUpdate || o.out != oWrongSeq {
			continue
		}
		j := sort.Search(m, func(j int) bool { return ws[j].rev >= o.expected })
		if j == m || ws[j].rev != o.expected || o.call <= hi[j] || (j+1 < m && o.ret >= lo[j+1]) {
			continue
		}
		rf := refutation{op: o, related: []*linOp{hiBy[j]}}
		rf.why = fmt.Sprintf("revision %d, the one it expected, had taken effect by %s, when %s ended, ",
			o.expected, fmtT(hi[j]), opName(hiBy[j]))
		if j+1 < m {
			rf.related = append(rf.related, loBy[j+1])
			rf.why += fmt.Sprintf("and revision %d cannot take effect before %s, when %s started", ws[j+1].rev, fmtT(lo[j+1]), opName(loBy[j+1]))
		} else {
			rf.why += "and no later write exists"
		}
		out = append(out, rf)
	}
	return ops, out
}

// tightScratch is tighten's working memory, reused across keys.
type tightScratch struct {
	ws, lastCall, firstRet, loBy, hiBy []*linOp
	vers                               []int32
	lo, hi                             []int64
}

var tightPool = sync.Pool{New: func() any { return new(tightScratch) }}

// bys returns *s resized to n nil pointers, keeping its backing array.
func (*tightScratch) bys(s *[]*linOp, n int) []*linOp {
	*s = slices.Grow((*s)[:0], n)[:n]
	clear(*s)
	return *s
}

// put clears the pointers (so the pool keeps no key alive) and returns sc
// to the pool.
func (sc *tightScratch) put() {
	for _, s := range [][]*linOp{sc.ws, sc.lastCall, sc.firstRet, sc.loBy, sc.hiBy} {
		clear(s[:cap(s)])
	}
	tightPool.Put(sc)
}

// Porcupine only uses the order of call and return events and sorts events
// at equal times arbitrarily, calls first. Tightening makes ties common: a
// write's lower bound is often exactly the call of a get of the revision
// before it. Tried in the wrong order, the write goes first, the get cannot
// follow it, and porcupine backtracks through every order of the ops around
// them. So times are scaled: an op invoked at t calls at 4t, or 4t+1 for a
// write that changes the state, and returns at 4t+2. Among events of
// different instants nothing changes; within one instant calls still come
// before returns, and the order of two calls (or of two returns) never
// matters to linearizability, so the history is equivalent.
func scaleCall(t int64, write bool) int64 {
	if write {
		return 4*t + 1
	}
	return 4 * t
}

func scaleRet(t int64) int64 {
	if t == math.MaxInt64 {
		return t
	}
	return 4*t + 2
}

// fmtT formats a scaled time.
func fmtT(t int64) string {
	if t != math.MaxInt64 && t != math.MinInt64 {
		t /= 4
	}
	return fmtNs(t)
}

func fmtNs(t int64) string {
	switch t {
	case math.MaxInt64:
		return "never"
	case math.MinInt64:
		return "the start"
	}
	return fmt.Sprintf("%.3fms", ms(t))
}

// opName names an op for a sentence: "client 3's get of revision 7 (line 12)".
func opName(o *linOp) string {
	if o == nil {
		return "?"
	}
	var what string
	switch o.kind {
	case kGet:
		if o.out == oNotFound && o.rev == 0 {
			what = "get (not found)"
		} else {
			what = fmt.Sprintf("get of revision %d", o.rev)
		}
	case kUpdate, kPut, kCreate, kDelete:
		what = fmt.Sprintf("write of revision %d", o.rev)
	default:
		return "the piece's start"
	}
	return fmt.Sprintf("client %d's %s (line %d)", o.client, what, o.line)
}
