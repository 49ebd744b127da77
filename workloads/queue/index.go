package queue

import (
	"cmp"
	"slices"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// index is one pass over a cell that every checker reads. Values are
// interned: a value's number is its position in vals, -1 for a payload no
// publish carried.
type index struct {
	c         *Cell
	o         Options
	consumers map[string]int
	producers map[string]int // producer id -> position in perProducer
	vals      []valueRec
	byValue   map[string]int32
	dels      []delivery // sorted by consumer, stream seq, complete, op
	acks      []ackRec   // sorted by consumer, stream seq, invoke, op
	samples   [][]int    // per consumer: consumer-info op indices, in time order
	drains    []int      // per consumer: its drain op index, -1 if none
	runs      []span
	faults    []span
	heal      int64 // end of the last fault window, 0 if none
	streamOp  int   // the stream-info op, -1 if none
	// perProducer lists each producer's values in the order it published.
	perProducer [][]int32
}

// valueRec is what the history says about one value.
type valueRec struct {
	value       string
	published   bool
	outcome     history.Outcome // best over its attempts: ok, else info, else fail
	firstInvoke int64
	lastEnd     int64 // complete of its last attempt
	okEnd       int64 // complete of its first acknowledged attempt
	okOp        int32 // that attempt's op, -1 if none
	firstOp     int32
	// seq and seq2 are the first two distinct stream sequences any source
	// (a PubAck, a delivery, the read-back) placed the value at; seqOp and
	// seq2Op are the ops that said so (-1: the read-back).
	seq, seq2     uint64
	seqOp, seq2Op int32
	inStream      bool
	delivered     uint64 // bit c: delivered to consumer c
}

// delivery is one deliver op.
type delivery struct {
	cons             int32
	val              int32
	client           int32
	op               int32
	seq, count       uint64
	invoke, complete int64
}

// ackRec is one ack, ack-sync or nak op.
type ackRec struct {
	cons             int32
	op               int32
	client           int32
	typ              history.OpType
	outcome          history.Outcome
	seq, count       uint64
	invoke, complete int64
}

type span struct {
	start, end int64
	op         int
}

// outcomeRank orders outcomes so a value keeps its best one.
var outcomeRank = map[history.Outcome]int{history.Fail: 1, history.Info: 2, history.OK: 3}

func newIndex(c *Cell) *index {
	ix := &index{c: c, o: c.Options, consumers: map[string]int{}, producers: map[string]int{},
		byValue: make(map[string]int32, len(c.Ops)/4), streamOp: -1}
	ix.samples = make([][]int, len(c.Consumers))
	ix.drains = make([]int, len(c.Consumers))
	for i, name := range c.Consumers {
		ix.consumers[name] = i
		ix.drains[i] = -1
	}
	for n := range c.Ops {
		ix.add(n, &c.Ops[n])
	}
	for _, e := range c.Stream {
		v := ix.value(e.Value, false)
		if v >= 0 {
			ix.vals[v].inStream = true
			ix.placeAt(v, e.Seq, -1)
		}
	}
	slices.SortFunc(ix.dels, func(a, b delivery) int {
		return cmp.Or(cmp.Compare(a.cons, b.cons), cmp.Compare(a.seq, b.seq), cmp.Compare(a.complete, b.complete), cmp.Compare(a.op, b.op))
	})
	slices.SortFunc(ix.acks, func(a, b ackRec) int {
		return cmp.Or(cmp.Compare(a.cons, b.cons), cmp.Compare(a.seq, b.seq), cmp.Compare(a.invoke, b.invoke), cmp.Compare(a.op, b.op))
	})
	for _, s := range ix.samples {
		slices.SortStableFunc(s, func(a, b int) int { return cmp.Compare(c.Ops[a].Complete, c.Ops[b].Complete) })
	}
	return ix
}

func (ix *index) add(n int, op *Op) {
	switch op.Type {
	case history.Fault:
		if op.Outcome != history.Fail { // a fault never injected changed nothing
			ix.faults = append(ix.faults, span{op.Invoke, op.Complete, n})
			ix.heal = max(ix.heal, op.Complete)
		}
	case OpPublish:
		ix.addPublish(n, op)
	case OpDeliver:
		ix.addDelivery(n, op)
	case OpAck, OpAckSync, OpNak:
		if c, ok := ix.consumers[op.M.Consumer]; ok {
			ix.acks = append(ix.acks, ackRec{cons: int32(c), op: int32(n), client: int32(op.Client), typ: op.Type,
				outcome: op.Outcome, seq: op.M.Seq, count: op.M.Delivered, invoke: op.Invoke, complete: op.Complete})
		}
	case OpConsumerInfo:
		if c, ok := ix.consumers[op.M.Consumer]; ok {
			ix.samples[c] = append(ix.samples[c], n)
		}
	case OpDrain:
		if c, ok := ix.consumers[op.M.Consumer]; ok {
			ix.drains[c] = n
		}
	case OpRun:
		ix.runs = append(ix.runs, span{op.Invoke, op.Complete, n})
	case OpStreamInfo:
		if op.Outcome == history.OK {
			ix.streamOp = n
		}
	}
}

func (ix *index) addPublish(n int, op *Op) {
	v := ix.value(op.M.Value, true)
	r := &ix.vals[v]
	if !r.published {
		r.published, r.firstInvoke, r.firstOp = true, op.Invoke, int32(n)
		p, ok := ix.producers[op.M.Producer]
		if !ok {
			p = len(ix.perProducer)
			ix.producers[op.M.Producer] = p
			ix.perProducer = append(ix.perProducer, nil)
		}
		ix.perProducer[p] = append(ix.perProducer[p], v)
	}
	r.firstInvoke = min(r.firstInvoke, op.Invoke)
	r.lastEnd = max(r.lastEnd, op.Complete)
	if outcomeRank[op.Outcome] > outcomeRank[r.outcome] {
		r.outcome = op.Outcome
	}
	if op.Outcome == history.OK {
		if r.okOp < 0 || op.Complete < r.okEnd {
			r.okEnd, r.okOp = op.Complete, int32(n)
		}
		if op.M.Seq > 0 {
			ix.placeAt(v, op.M.Seq, int32(n))
		}
	}
}

func (ix *index) addDelivery(n int, op *Op) {
	c, ok := ix.consumers[op.M.Consumer]
	if !ok || op.Outcome != history.OK {
		return
	}
	v := ix.value(op.M.Value, false)
	if v >= 0 {
		ix.vals[v].delivered |= 1 << c
		ix.placeAt(v, op.M.Seq, int32(n))
	}
	ix.dels = append(ix.dels, delivery{cons: int32(c), val: v, client: int32(op.Client), op: int32(n),
		seq: op.M.Seq, count: op.M.Delivered, invoke: op.Invoke, complete: op.Complete})
}

// value interns v. Only a publish creates a value; a payload no publish
// carried (so far) is created unpublished, and -1 is returned for one that
// is not even of the workload's form.
func (ix *index) value(v string, publish bool) int32 {
	if n, ok := ix.byValue[v]; ok {
		return n
	}
	if !publish {
		if _, _, ok := parseValue(v); !ok {
			return -1
		}
	}
	n := int32(len(ix.vals))
	ix.vals = append(ix.vals, valueRec{value: v, okOp: -1, firstOp: -1, seqOp: -1, seq2Op: -1})
	ix.byValue[v] = n
	return n
}

// placeAt records that a source placed value v at stream sequence seq.
func (ix *index) placeAt(v int32, seq uint64, op int32) {
	r := &ix.vals[v]
	switch {
	case seq == 0 || seq == r.seq || seq == r.seq2:
	case r.seq == 0:
		r.seq, r.seqOp = seq, op
	case r.seq2 == 0:
		r.seq2, r.seq2Op = seq, op
	}
}

// minSeq is the lowest stream sequence the value was placed at.
func (r *valueRec) minSeq() uint64 {
	if r.seq2 != 0 && r.seq2 < r.seq {
		return r.seq2
	}
	return r.seq
}

// groups calls f for each run of deliveries of one message (consumer,
// stream sequence), in complete order.
func (ix *index) groups(f func(ds []delivery)) {
	for i := 0; i < len(ix.dels); {
		j := i + 1
		for j < len(ix.dels) && ix.dels[j].cons == ix.dels[i].cons && ix.dels[j].seq == ix.dels[i].seq {
			j++
		}
		f(ix.dels[i:j])
		i = j
	}
}

// acksOf are the ack, ack-sync and nak ops of one message, in invoke order.
func (ix *index) acksOf(cons int32, seq uint64) []ackRec {
	lo, _ := slices.BinarySearchFunc(ix.acks, ackRec{cons: cons, seq: seq}, func(a, b ackRec) int {
		return cmp.Or(cmp.Compare(a.cons, b.cons), cmp.Compare(a.seq, b.seq))
	})
	hi := lo
	for hi < len(ix.acks) && ix.acks[hi].cons == cons && ix.acks[hi].seq == seq {
		hi++
	}
	return ix.acks[lo:hi]
}

// delsOf are the deliveries of one message, in complete order.
func (ix *index) delsOf(cons int32, seq uint64) []delivery {
	lo, _ := slices.BinarySearchFunc(ix.dels, delivery{cons: cons, seq: seq}, func(a, b delivery) int {
		return cmp.Or(cmp.Compare(a.cons, b.cons), cmp.Compare(a.seq, b.seq))
	})
	hi := lo
	for hi < len(ix.dels) && ix.dels[hi].cons == cons && ix.dels[hi].seq == seq {
		hi++
	}
	return ix.dels[lo:hi]
}

// drained says whether consumer c's final drain ended with nothing pending.
func (ix *index) drained(c int) bool {
	return ix.drains[c] >= 0 && ix.c.Ops[ix.drains[c]].Outcome == history.OK
}

// allDrained says whether every consumer's drain ended with nothing pending.
func (ix *index) allDrained() bool {
	for c := range ix.drains {
		if !ix.drained(c) {
			return false
		}
	}
	return len(ix.drains) > 0
}
