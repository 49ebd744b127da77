package kvcheck

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// tieSim generates small histories of a linearizable CAS KV store on a
// coarse clock, so that equal timestamps and zero-length ops are common
// (simulate's random nanosecond latencies never tie). Every op takes
// effect at one tick inside [invoke, complete]; ops that take effect at
// the same tick do so in random order, which real time allows since they
// all overlap that tick. perturb then damages a history, which may or may
// not leave it linearizable: the brute-force oracle decides.
type tieSimConfig struct {
	Clients, Keys, Ops int
	MaxDur, MaxGap     int // ticks an op lasts, ticks between a client's ops: 0..Max
	PutRate            float64
	InfoRate           float64 // a write times out; half of those are applied
	SpuriousRate       float64 // an update with the current revision fails with 10164
}

const simTick = 1000 // ns

type tieEvent struct {
	t      int64
	done   bool // the op completes; else it takes effect
	order  uint64
	client int
}

type tieHeap []tieEvent

func (h tieHeap) Len() int { return len(h) }
func (h tieHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.t != b.t {
		return a.t < b.t
	}
	if a.done != b.done {
		return !a.done // an op takes effect before anything completes at that tick
	}
	return a.order < b.order
}
func (h tieHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *tieHeap) Push(x any)   { *h = append(*h, x.(tieEvent)) }
func (h *tieHeap) Pop() any     { x := (*h)[len(*h)-1]; *h = (*h)[:len(*h)-1]; return x }

type tieClient struct {
	op            history.Op
	info, applies bool // the current write times out; it is applied anyway
	last          history.Op
	putGet        bool // the next op reads back a put
	wrote         int
}

func tieSimulate(cfg tieSimConfig, r *rand.Rand) history.History {
	type ver struct {
		rev   uint64
		value string
	}
	cur := map[string]ver{} // key -> current version
	var rev uint64
	var stream []history.Entry
	var ops []history.Op
	clients := make([]tieClient, cfg.Clients)
	var h tieHeap
	started := 0
	ticks := func(n int) int64 { return int64(r.IntN(n+1)) * simTick }
	start := func(id int, at int64) {
		if started == cfg.Ops {
			return
		}
		started++
		c := &clients[id]
		var op history.Op
		switch {
		case c.putGet:
			c.putGet = false
			op = history.Op{Type: history.Get, Key: c.last.Key}
		case c.last.Type == history.Get && c.last.Outcome == history.OK && r.IntN(4) > 0:
			op = history.Op{Type: history.Update, Key: c.last.Key, ExpectedRev: c.last.Rev}
			if c.last.Rev == 0 {
				op = history.Op{Type: history.Create, Key: c.last.Key}
			}
		default:
			op = history.Op{Type: history.Get, Key: "k" + strconv.Itoa(r.IntN(cfg.Keys))}
			if r.Float64() < cfg.PutRate {
				op.Type, c.putGet = history.Put, true
			}
		}
		op.Client, op.Invoke = id, at
		op.Complete = at + ticks(cfg.MaxDur)
		c.info, c.applies = false, false
		if op.IsWrite() {
			c.wrote++
			op.Value = fmt.Sprintf("c%d-%d", id, c.wrote)
			if r.Float64() < cfg.InfoRate {
				c.info, c.applies = true, r.IntN(2) == 0
			}
		}
		c.op = op
		point := op.Invoke + int64(r.IntN(int((op.Complete-op.Invoke)/simTick)+1))*simTick
		heap.Push(&h, tieEvent{t: point, order: r.Uint64(), client: id})
		heap.Push(&h, tieEvent{t: op.Complete, done: true, order: r.Uint64(), client: id})
	}
	apply := func(c *tieClient) {
		op := &c.op
		v, exists := cur[op.Key]
		write := func() {
			rev++
			cur[op.Key] = ver{rev, op.Value}
			stream = append(stream, history.Entry{Seq: rev, Key: op.Key, Value: op.Value})
			op.Rev = rev
		}
		op.Outcome = history.OK
		can := op.Type == history.Put || op.Type == history.Create && !exists ||
			op.Type == history.Update && exists && v.rev == op.ExpectedRev
		switch {
		case c.info:
			if c.applies && can {
				write()
			}
			op.Outcome, op.Err, op.Rev = history.Info, history.ErrTimeout, 0
		case op.Type == history.Get && !exists:
			op.Err = history.ErrNotFound
		case op.Type == history.Get:
			op.Value, op.Rev = v.value, v.rev
		case op.Type == history.Create && !can:
			op.Outcome, op.Err, op.ErrCode, op.ErrSeq = history.Fail, history.ErrKeyExists, 10071, v.rev
		case op.Type == history.Update && !can:
			op.Outcome, op.Err, op.ErrCode, op.ErrSeq = history.Fail, history.ErrWrongLastSeq, 10071, v.rev
		case op.Type == history.Update && r.Float64() < cfg.SpuriousRate:
			op.Outcome, op.Err, op.ErrCode = history.Fail, history.ErrWrongLastSeqAny, 10164
		default:
			write()
		}
	}
	for id := range clients {
		start(id, ticks(cfg.MaxGap))
	}
	for h.Len() > 0 {
		e := heap.Pop(&h).(tieEvent)
		c := &clients[e.client]
		if !e.done {
			apply(c)
			continue
		}
		ops = append(ops, c.op)
		c.last = c.op
		start(e.client, c.op.Complete+ticks(cfg.MaxGap))
	}
	return history.History{Ops: ops, Stream: stream, StreamComplete: true}
}

// perturb damages h in one random way and says how. Some damage leaves
// the history linearizable (a stale get that happens to be concurrent with
// the newer write, a shift that breaks no order): the oracle decides.
func perturb(h *history.History, r *rand.Rand) string {
	for {
		if how := perturbOnce(h, r); how != "none" {
			return how
		}
	}
}

func perturbOnce(h *history.History, r *rand.Rand) string {
	pick := func(ok func(o *history.Op) bool) int {
		var idx []int
		for i := range h.Ops {
			if ok(&h.Ops[i]) {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return -1
		}
		return idx[r.IntN(len(idx))]
	}
	switch r.IntN(6) {
	case 0: // a get returns an older version, or nothing
		i := pick(func(o *history.Op) bool { return o.Type == history.Get && o.Outcome == history.OK && o.Rev > 0 })
		if i < 0 {
			return "none"
		}
		g := &h.Ops[i]
		was := g.Rev
		g.Value, g.Rev, g.Err = "", 0, history.ErrNotFound
		for _, e := range h.Stream {
			if e.Key == g.Key && e.Seq < was && r.IntN(2) == 0 {
				g.Value, g.Rev, g.Err = e.Value, e.Seq, history.ErrNone
			}
		}
		return "stale get"
	case 1: // a rejected update or create succeeds too: a double-success CAS
		i := pick(func(o *history.Op) bool { return o.Err == history.ErrWrongLastSeq || o.Err == history.ErrKeyExists })
		if i < 0 {
			return "none"
		}
		u := &h.Ops[i]
		seq := uint64(len(h.Stream)) + 1
		u.Outcome, u.Err, u.ErrCode, u.ErrSeq, u.Rev = history.OK, history.ErrNone, 0, 0, seq
		h.Stream = append(h.Stream, history.Entry{Seq: seq, Key: u.Key, Value: u.Value})
		return "double success"
	case 2: // a 10164 becomes a 10071, which needs another revision
		i := pick(func(o *history.Op) bool { return o.Err == history.ErrWrongLastSeqAny })
		if i < 0 {
			return "none"
		}
		h.Ops[i].Err, h.Ops[i].ErrCode = history.ErrWrongLastSeq, 10071
		return "10164 as 10071"
	case 3, 4: // an op moves a tick or two: orders appear or vanish
		i := pick(func(*history.Op) bool { return true })
		o := &h.Ops[i]
		d := int64(1+r.IntN(2)) * simTick
		if r.IntN(2) == 0 {
			o.Invoke += d
			o.Complete = max(o.Complete, o.Invoke)
		} else {
			o.Complete = max(o.Invoke, o.Complete-d)
		}
		return "moved"
	default: // the stream is read only in part
		h.Stream, h.StreamComplete = h.Stream[:r.IntN(len(h.Stream)+1)], false
		return "stream cut"
	}
}
