package kvcheck

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"sync"
)

// linearizeByRevision tries, before any search, the one order a key's
// revisions dictate, and reports whether it is a linearization of the
// piece. When it is, the piece is legal and porcupine is not needed; when
// it is not, nothing is concluded (porcupine decides as before).
//
// Why this is sound: the candidate is verified on its own, whatever built
// it. Every op gets a point in its interval [call, ret] (the narrowed,
// scaled interval porcupine would see), the points never decrease along
// the order, and the model (stepOne) accepts the order from the seed's
// state. Points in the intervals, in order, respect real time under the
// package's tie rule: if A.ret < B.call then A's point is before B's.
//
// Why it usually succeeds: writes are linearized in revision order (each
// needs R > state.rev), and a get of revision r must fall after the write
// of r and before the next one, so the order of writes and gets is forced;
// only where in an epoch each op goes is chosen (earliest deadline first,
// which places zero-length points optimally). Rejections (10071, 10164,
// key_exists) change nothing and go to the first epoch they fit. A piece
// with an unsettled indeterminate write, which makes the model
// nondeterministic, is left to porcupine.
//
// This is the test that KV stores with versions allow (a linearization
// with a known write order can be checked in n log n; Gibbons and Korach,
// "Testing shared memories", SIAM J. Comput. 1997, for the reads-from
// variant), used only as a witness: a failure falls back to porcupine.
func linearizeByRevision(piece []*linOp) bool {
	if len(piece) == 0 || piece[0].kind != kSeed {
		return false
	}
	sc := directPool.Get().(*directScratch)
	defer sc.put()
	writes, gets, rejections := sc.writes[:0], sc.gets[:0], sc.rejections[:0]
	for _, o := range piece[1:] {
		switch {
		case o.out == oUnknown || o.kind == kSeed:
			return false
		case o.pinned():
			writes = append(writes, o)
		case o.kind == kGet:
			gets = append(gets, o)
		case o.out == oWrongSeq || o.out == oInflight || o.out == oExists:
			rejections = append(rejections, o)
		default:
			return false
		}
	}
	sc.writes, sc.gets, sc.rejections = writes, gets, rejections
	slices.SortFunc(writes, func(a, b *linOp) int { return cmp.Compare(a.rev, b.rev) })
	e := epochs{seed: piece[0], writes: writes, start: sc.start[:0], out: sc.points[:0]}
	defer func() { sc.start, sc.points = e.start, e.out }()
	byEpoch := sc.epochs(len(writes) + 1)
	for _, g := range gets {
		k := e.epochOf(g.rev)
		if k < 0 {
			return false
		}
		byEpoch[k] = append(byEpoch[k], g)
	}
	placed, ok := e.place(byEpoch)
	if !ok {
		return false
	}
	if len(rejections) > 0 {
		for _, o := range rejections {
			k := e.assign(o)
			if k < 0 {
				return false
			}
			byEpoch[k] = append(byEpoch[k], o)
		}
		if placed, ok = e.place(byEpoch); !ok {
			return false
		}
	}
	return e.verify(placed)
}

// directScratch is linearizeByRevision's memory, reused across pieces: it
// decides most pieces, so allocating afresh for each would feed the GC
// most of what the check allocates.
type directScratch struct {
	writes, gets, rejections []*linOp
	byEpoch                  [][]*linOp
	start                    []int64
	points                   []point
}

var directPool = sync.Pool{New: func() any { return new(directScratch) }}

// epochs returns n empty per-epoch lists, keeping their backing arrays.
func (sc *directScratch) epochs(n int) [][]*linOp {
	for len(sc.byEpoch) < n {
		sc.byEpoch = append(sc.byEpoch, nil)
	}
	sc.byEpoch = sc.byEpoch[:max(n, len(sc.byEpoch))]
	for i := range n {
		sc.byEpoch[i] = sc.byEpoch[i][:0]
	}
	return sc.byEpoch[:n]
}

// put clears the pointers (so the pool keeps no piece alive) and returns
// sc to the pool.
func (sc *directScratch) put() {
	clear(sc.writes[:cap(sc.writes)])
	clear(sc.gets[:cap(sc.gets)])
	clear(sc.rejections[:cap(sc.rejections)])
	for i := range sc.byEpoch {
		clear(sc.byEpoch[i][:cap(sc.byEpoch[i])])
	}
	clear(sc.points[:cap(sc.points)])
	directPool.Put(sc)
}

// epochs are the states of a piece in revision order: epoch 0 is the
// seed's, epoch k starts with writes[k-1]. start[k] is the point of the
// op that opens epoch k.
type epochs struct {
	seed   *linOp
	writes []*linOp
	start  []int64
	out    []point // place's result (its backing array reused)
}

// point is an op placed in an epoch at a time.
type point struct {
	o     *linOp
	epoch int
	at    int64
}

func (e *epochs) rev(k int) uint64 {
	if k == 0 {
		return e.seed.rev
	}
	return e.writes[k-1].rev
}

func (e *epochs) exists(k int) bool {
	if k == 0 {
		return e.seed.exists
	}
	return e.writes[k-1].kind != kDelete
}

// epochOf is the epoch whose state has revision rev, or -1.
func (e *epochs) epochOf(rev uint64) int {
	if rev == e.seed.rev && (len(e.writes) == 0 || e.writes[0].rev != rev) {
		return 0
	}
	i := sort.Search(len(e.writes), func(i int) bool { return e.writes[i].rev >= rev })
	if i < len(e.writes) && e.writes[i].rev == rev {
		return i + 1
	}
	return -1
}

// place gives the seed, every write and every op of byEpoch a point,
// epoch by epoch, each as early as it can go, and fills e.start; it fails
// when some op cannot be placed in its interval.
func (e *epochs) place(byEpoch [][]*linOp) ([]point, bool) {
	n := len(e.writes) + 1
	out := e.out[:0]
	e.start = slices.Grow(e.start[:0], n+1)[:n+1]
	prev := e.seed.call
	out = append(out, point{o: e.seed, at: prev})
	for k := 0; k < n; k++ {
		if k > 0 {
			w := e.writes[k-1]
			prev = max(prev, w.call)
			if prev > w.ret {
				return nil, false
			}
			out = append(out, point{o: w, epoch: k, at: prev})
		}
		e.start[k] = prev
		in := byEpoch[k]
		slices.SortFunc(in, func(a, b *linOp) int { return cmp.Compare(a.ret, b.ret) }) // earliest deadline first
		for _, o := range in {
			prev = max(prev, o.call)
			if prev > o.ret {
				e.out = out
				return nil, false
			}
			out = append(out, point{o: o, epoch: k, at: prev})
		}
	}
	e.start[n] = math.MaxInt64
	e.out = out
	return out, true
}

// assign picks the epoch of a rejection, or -1: the first epoch whose
// state the model lets it see and whose span, as placed, overlaps its
// interval; else an earlier such epoch whose closing write can wait until
// the rejection is invoked (place then delays that write).
func (e *epochs) assign(o *linOp) int {
	n := len(e.writes) + 1
	fits := func(k int) bool {
		switch o.out {
		case oWrongSeq:
			return e.rev(k) != o.expected
		case oExists:
			return e.exists(k) || e.rev(k) != 0
		}
		return true
	}
	// The first epoch that has not ended before o is invoked.
	first := sort.Search(n, func(k int) bool { return e.start[k+1] >= o.call })
	for k := first; k < n && e.start[k] <= o.ret; k++ {
		if fits(k) {
			return k
		}
	}
	for k := first - 1; k >= 0 && e.writes[k].ret >= o.call && e.start[k] <= o.ret; k-- {
		if fits(k) {
			return k
		}
	}
	return -1
}

// verify checks the candidate: the order (by epoch, the epoch's write
// first, then by point), every point in its op's interval and never
// decreasing, and the model's acceptance of every step.
func (e *epochs) verify(ps []point) bool {
	slices.SortStableFunc(ps, func(x, y point) int {
		if x.epoch != y.epoch {
			return cmp.Compare(x.epoch, y.epoch)
		}
		if wx, wy := x.o.pinned() || x.o.kind == kSeed, y.o.pinned() || y.o.kind == kSeed; wx != wy {
			if wx {
				return -1
			}
			return 1
		}
		return cmp.Compare(x.at, y.at)
	})
	if len(ps) == 0 || ps[0].o != e.seed {
		return false
	}
	var s kvState
	last := int64(math.MinInt64)
	for _, p := range ps {
		if p.at < p.o.call || p.at > p.o.ret || p.at < last {
			return false
		}
		ok, next := stepOne(s, p.o)
		if !ok {
			return false
		}
		s, last = next, p.at
	}
	return true
}
