// Package online judges a kv history while it is recorded, so that a run
// shows its anomalies as they happen and can stop at the first one. It
// finds what can be decided from the ops alone: real-time stale reads,
// read-your-writes and monotonic-read violations, and the wrong-last-
// sequence rejections caused by a stale read. The offline checkers
// (package kvcheck) remain the verdict; on the same history these counts
// equal theirs (online_test.go holds that), so the live line never tells a
// different story.
//
// Delete and purge markers are writes with a revision (history.Op.IsWrite)
// and a get that found one records its revision, so markers are judged
// here exactly as offline.
//
// Ops arrive as the recorder writes them, which is close to but not exactly
// the order they completed. The checker holds each op for Delay and then
// judges ops in completion order; an op recorded later than that after it
// completed is still judged, but may be missed as a witness (the count can
// then only be lower than the offline one, never higher). Memory is
// bounded: per key only the writes of the last Horizon are kept, older ones
// are folded into one maximum.
package online

import (
	"container/heap"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Counts are the anomalies found so far.
type Counts struct {
	Gets          int64 `json:"gets"`
	StaleReads    int64 `json:"stale_reads"`
	RYW           int64 `json:"ryw_violations"`
	Monotonic     int64 `json:"monotonic_violations"`
	RejectedStale int64 `json:"rejected_by_stale_reads"`
	Late          int64 `json:"late_ops"` // ops recorded more than Delay after they completed
}

// Anomalies is their sum.
func (c Counts) Anomalies() int64 { return c.StaleReads + c.RYW + c.Monotonic }

// First is the first anomaly found, by the completion time of the op that
// showed it.
type First struct {
	Kind string     `json:"kind"` // stale_read, read_your_writes, monotonic_reads
	Op   history.Op `json:"op"`
}

// Checker is the online checker. The zero value is not ready: use New.
type Checker struct {
	Delay   time.Duration // how long an op is held before it is judged
	Horizon time.Duration // the longest an op may take (ops time out sooner)

	mu       sync.Mutex
	pending  opHeap
	seq      int64
	mark     int64 // ops completing before this have been judged
	keys     map[string]*keyWrites
	sessions map[clientKey]*session
	counts   Counts
	first    *First
	judged   int
}

// New returns a checker holding ops for delay, for ops that take at most
// horizon.
func New(delay, horizon time.Duration) *Checker {
	return &Checker{Delay: delay, Horizon: horizon, keys: map[string]*keyWrites{}, sessions: map[clientKey]*session{}}
}

type clientKey struct {
	client int
	key    string
}

// session is one client's view of one key: its own acknowledged writes
// and its reads, in completion order, so that a get is judged only against
// those that strictly precede it (the checkers' tie rule, for one client's
// ops as for any two).
type session struct {
	wrote, read keyWrites
	get         uint64 // revision its latest ok get returned
	getStale    bool   // that get was a stale read
	hasGet      bool
}

// keyWrites are one key's acknowledged writes in completion order, with a
// running maximum revision; writes older than the horizon are folded into
// base.
type keyWrites struct {
	base     uint64 // highest revision among the folded writes
	complete []int64
	prefMax  []uint64
}

// Add takes an op as it is recorded, judging every op whose hold is over.
func (c *Checker) Add(op history.Op) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !history.IsKV(op.Type) {
		return // a fault, or a TTL key's op: not the online checks'
	}
	if op.Complete < c.mark {
		c.counts.Late++
	}
	c.seq++
	heap.Push(&c.pending, pendingOp{op: op, seq: c.seq})
	c.drain(op.Complete - int64(c.Delay))
}

// Flush judges everything still held (at the end of a run, or of a
// history replayed in a test).
func (c *Checker) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drain(1<<63 - 1)
}

// Counts returns the counts so far.
func (c *Checker) Counts() Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts
}

// FirstAnomaly returns the first anomaly, if any.
func (c *Checker) FirstAnomaly() (First, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first == nil {
		return First{}, false
	}
	return *c.first, true
}

// Tally is the counts so far by their JSON names, in words, and the first
// anomaly (workloads.LiveChecker).
func (c *Checker) Tally() record.Online {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.counts
	o := record.Online{
		Counts: map[string]int64{"gets": n.Gets, "stale_reads": n.StaleReads, "ryw_violations": n.RYW,
			"monotonic_violations": n.Monotonic, "rejected_by_stale_reads": n.RejectedStale, "late_ops": n.Late},
		Words: fmt.Sprintf("%d stale reads, %d read-your-writes and %d monotonic-read violations, %d updates rejected by stale reads",
			n.StaleReads, n.RYW, n.Monotonic, n.RejectedStale),
	}
	if c.first != nil {
		o.First = &record.LiveAnomaly{Kind: c.first.Kind, Op: c.first.Op}
	}
	return o
}

// drain judges the held ops that completed before upTo, in completion
// order (ties in the order they were recorded).
func (c *Checker) drain(upTo int64) {
	for c.pending.Len() > 0 && c.pending[0].op.Complete < upTo {
		p := heap.Pop(&c.pending).(pendingOp)
		if p.op.Complete > c.mark {
			c.mark = p.op.Complete
		}
		c.judge(p.op)
		if c.judged++; c.judged%4096 == 0 {
			c.prune()
		}
	}
}

func (c *Checker) judge(o history.Op) {
	if o.Key == "" {
		return
	}
	ck := clientKey{o.Client, o.Key}
	s := c.sessions[ck]
	if s == nil {
		s = &session{}
		c.sessions[ck] = s
	}
	switch {
	case o.Outcome == history.OK && o.IsWrite():
		c.addWrite(o)
		s.wrote.add(o.Complete, o.Rev)
	case o.Outcome == history.OK && o.Type == history.Get:
		c.judgeGet(o, s)
	case o.Type == history.Update && (o.Err == history.ErrWrongLastSeq || o.Err == history.ErrWrongLastSeqAny):
		// The offline attribution's first class: the get that supplied the
		// expected revision was itself stale.
		if s.hasGet && s.get == o.ExpectedRev && s.getStale {
			c.counts.RejectedStale++
		}
	}
}

func (c *Checker) judgeGet(o history.Op, s *session) {
	c.counts.Gets++
	stale := c.staleAt(o.Key, o.Invoke) > o.Rev
	if stale {
		c.counts.StaleReads++
		c.noteFirst("stale_read", o)
	}
	if o.Rev < s.wrote.before(o.Invoke) {
		c.counts.RYW++
		c.noteFirst("read_your_writes", o)
	}
	if o.Rev < s.read.before(o.Invoke) {
		c.counts.Monotonic++
		c.noteFirst("monotonic_reads", o)
	}
	s.read.add(o.Complete, o.Rev)
	s.get, s.getStale, s.hasGet = o.Rev, stale, true
}

func (c *Checker) noteFirst(kind string, o history.Op) {
	if c.first == nil {
		c.first = &First{Kind: kind, Op: o}
	}
}

func (c *Checker) addWrite(o history.Op) {
	if o.Rev == 0 {
		return
	}
	k := c.keys[o.Key]
	if k == nil {
		k = &keyWrites{}
		c.keys[o.Key] = k
	}
	k.add(o.Complete, o.Rev)
}

// add appends a revision that completed at t (t never decreases).
func (k *keyWrites) add(t int64, rev uint64) {
	m := max(rev, k.base)
	if n := len(k.prefMax); n > 0 {
		m = max(m, k.prefMax[n-1])
	}
	k.complete = append(k.complete, t)
	k.prefMax = append(k.prefMax, m)
}

// before is the highest revision that completed strictly before t: an op
// that completed at the very instant another was invoked is concurrent
// with it (porcupine's rule), not before it.
func (k *keyWrites) before(t int64) uint64 {
	i := sort.Search(len(k.complete), func(i int) bool { return k.complete[i] >= t })
	if i == 0 {
		return k.base
	}
	return k.prefMax[i-1]
}

// fold folds what completed before t into base.
func (k *keyWrites) fold(t int64) {
	i := sort.Search(len(k.complete), func(i int) bool { return k.complete[i] >= t })
	if i == 0 {
		return
	}
	k.base = max(k.base, k.prefMax[i-1])
	k.complete = append(k.complete[:0], k.complete[i:]...)
	k.prefMax = append(k.prefMax[:0], k.prefMax[i:]...)
}

// staleAt is the highest revision of key acknowledged strictly before t.
func (c *Checker) staleAt(key string, t int64) uint64 {
	if k := c.keys[key]; k != nil {
		return k.before(t)
	}
	return 0
}

// prune folds what completed more than Horizon before the mark: every op
// still to be judged was invoked after it.
func (c *Checker) prune() {
	before := c.mark - int64(c.Delay) - int64(c.Horizon)
	for _, k := range c.keys {
		k.fold(before)
	}
	for _, s := range c.sessions {
		s.wrote.fold(before)
		s.read.fold(before)
	}
}

type pendingOp struct {
	op  history.Op
	seq int64
}

// opHeap orders held ops by completion time, then by arrival.
type opHeap []pendingOp

func (h opHeap) Len() int { return len(h) }
func (h opHeap) Less(i, j int) bool {
	if h[i].op.Complete != h[j].op.Complete {
		return h[i].op.Complete < h[j].op.Complete
	}
	return h[i].seq < h[j].seq
}
func (h opHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *opHeap) Push(x any)   { *h = append(*h, x.(pendingOp)) }
func (h *opHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
