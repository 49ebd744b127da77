package kvcheck

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// simConfig drives simulate, a deterministic event-driven model of the
// kv-update workload against a KV store that is linearizable except where
// asked: every write takes effect at one instant inside its op, in time
// order, and gets read the state at one instant, unless StaleRate makes
// them return an older version.
type simConfig struct {
	Ops       int     // ops to record
	Clients   int     // writer clients
	Keys      int     // keys 0..Keys-1; key k < Keys-Contended is owned by client k%Clients
	Contended int     // the last Contended keys are shared by every client
	ShareRate float64 // chance an iteration picks a shared key
	PutRate   float64 // chance an iteration is put-then-get instead of get-then-update
	StaleRate float64 // chance a get returns an older version (1 to 3 back)
	InfoRate  float64 // chance a write times out; half of those are applied anyway
	Spurious  float64 // chance an update with the current revision fails with 10164
	Seed      uint64
}

type simVersion struct {
	rev   uint64
	value string
}

type simClient struct {
	id       int
	k        int // key of the current op
	op       history.Op
	owned    []int
	next     int
	wrote    int
	lastOK   bool // the last get was ok
	last     history.Op
	putGet   bool // the next op is the get of a put-then-get
	readBack bool // the current get is that one: no update follows it
}

type simEvent struct {
	t      int64
	client int
	apply  bool
}

type simHeap []simEvent

func (h simHeap) Len() int { return len(h) }
func (h simHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].client < h[j].client
}
func (h simHeap) Swap(i, j int)     { h[i], h[j] = h[j], h[i] }
func (h *simHeap) Push(x any)       { *h = append(*h, x.(simEvent)) }
func (h *simHeap) Pop() any         { x := (*h)[len(*h)-1]; *h = (*h)[:len(*h)-1]; return x }
func simKey(k int) string           { return "k" + strconv.Itoa(k) }
func simLatency(r *rand.Rand) int64 { return 100_000 + r.Int64N(900_000) } // 0.1-1ms

const simTimeout = 50_000_000 // 50ms

func simulate(cfg simConfig) history.History {
	r := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	versions := make([][]simVersion, cfg.Keys) // per key, oldest first
	var rev uint64
	var stream []history.Entry
	ops := make([]history.Op, 0, cfg.Ops)
	clients := make([]*simClient, cfg.Clients)
	owned := cfg.Keys - cfg.Contended
	for i := range clients {
		clients[i] = &simClient{id: i}
		for k := i; k < owned; k += cfg.Clients {
			clients[i].owned = append(clients[i].owned, k)
		}
	}
	var h simHeap
	started := 0
	// pending info outcomes, decided at apply time
	type fate struct{ info, applied bool }
	fates := make([]fate, cfg.Clients)

	start := func(c *simClient, t int64) {
		if started >= cfg.Ops {
			return
		}
		started++
		var op history.Op
		switch {
		case c.putGet:
			c.putGet, c.readBack = false, true
			op = history.Op{Type: history.Get, Key: c.last.Key}
		case c.lastOK && c.last.Type == history.Get && !c.readBack:
			op = history.Op{Type: history.Update, Key: c.last.Key, ExpectedRev: c.last.Rev}
			if c.last.Err == history.ErrNotFound {
				op = history.Op{Type: history.Create, Key: c.last.Key}
			}
		default:
			c.readBack = false
			var k int
			if cfg.Contended > 0 && (len(c.owned) == 0 || r.Float64() < cfg.ShareRate) {
				k = owned + r.IntN(cfg.Contended)
			} else {
				k = c.owned[c.next%len(c.owned)]
				c.next++
			}
			c.k = k
			op = history.Op{Type: history.Get, Key: simKey(k)}
			if r.Float64() < cfg.PutRate {
				op.Type = history.Put
				c.putGet = true
			}
		}
		op.Client, op.Node, op.Invoke = c.id, "n"+strconv.Itoa(c.id%3+1), t
		if op.IsWrite() {
			c.wrote++
			op.Value = "c" + strconv.Itoa(c.id) + "-" + strconv.Itoa(c.wrote)
			fates[c.id] = fate{}
			if r.Float64() < cfg.InfoRate {
				fates[c.id] = fate{info: true, applied: r.IntN(2) == 0}
			}
		}
		c.op = op
		heap.Push(&h, simEvent{t: t + simLatency(r), client: c.id, apply: true})
	}
	apply := func(c *simClient, t int64) int64 {
		op := &c.op
		k := c.k
		vs := versions[k]
		write := func() {
			rev++
			versions[k] = append(versions[k], simVersion{rev, op.Value})
			if len(versions[k]) > 4 {
				versions[k] = versions[k][1:]
			}
			stream = append(stream, history.Entry{Seq: rev, Key: op.Key, Value: op.Value})
			op.Rev = rev
		}
		f := fates[c.id]
		if op.IsWrite() && f.info {
			if f.applied && (op.Type == history.Put ||
				op.Type == history.Create && len(vs) == 0 ||
				op.Type == history.Update && len(vs) > 0 && vs[len(vs)-1].rev == op.ExpectedRev) {
				write()
			}
			op.Rev = 0
			op.Outcome, op.Err, op.ErrMsg = history.Info, history.ErrTimeout, "context deadline exceeded"
			return op.Invoke + simTimeout
		}
		op.Outcome = history.OK
		switch op.Type {
		case history.Get:
			i := len(vs) - 1
			if i >= 0 && r.Float64() < cfg.StaleRate {
				i -= 1 + r.IntN(3)
			}
			if i < 0 {
				op.Err = history.ErrNotFound
			} else {
				op.Value, op.Rev = vs[i].value, vs[i].rev
			}
		case history.Put:
			write()
		case history.Create:
			if len(vs) > 0 {
				op.Outcome, op.Err, op.ErrCode = history.Fail, history.ErrKeyExists, 10071
				op.ErrSeq = vs[len(vs)-1].rev
			} else {
				write()
			}
		case history.Update:
			switch {
			case len(vs) == 0 || vs[len(vs)-1].rev != op.ExpectedRev:
				op.Outcome, op.Err, op.ErrCode = history.Fail, history.ErrWrongLastSeq, 10071
				if len(vs) > 0 {
					op.ErrSeq = vs[len(vs)-1].rev
				}
				op.ErrMsg = fmt.Sprintf("wrong last sequence: %d", op.ErrSeq)
			case r.Float64() < cfg.Spurious:
				op.Outcome, op.Err, op.ErrCode, op.ErrMsg = history.Fail, history.ErrWrongLastSeqAny, 10164, "wrong last sequence"
			default:
				write()
			}
		}
		return t + simLatency(r)
	}
	for _, c := range clients {
		start(c, int64(c.id)*10_000)
	}
	for h.Len() > 0 {
		e := heap.Pop(&h).(simEvent)
		c := clients[e.client]
		if e.apply {
			heap.Push(&h, simEvent{t: apply(c, e.t), client: c.id})
			continue
		}
		c.op.Complete = e.t
		ops = append(ops, c.op)
		c.last, c.lastOK = c.op, c.op.Outcome == history.OK
		start(c, e.t+r.Int64N(50_000))
	}
	return history.History{Ops: ops, Stream: stream, StreamComplete: true}
}
