package queue

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// fx builds a queue cell by hand, op by op, for the testdata fixtures.
// Times are in milliseconds since the run's start.
type fx struct {
	o        Options
	ops      []Op
	stream   []history.Entry
	complete bool
	read     bool
	torn     bool   // stream.jsonl's line after the read-back's entries is cut short
	seqs     uint64 // highest stream sequence placed
}

const ms = int64(time.Millisecond)

func newFx(mut func(o *Options)) *fx {
	o := Defaults
	o.Producers, o.Consumers, o.Workers = 2, 2, 2
	o.NakRate, o.SkipRate = 0, 0
	if mut != nil {
		mut(&o)
	}
	return &fx{o: o, read: true, complete: true}
}

func (f *fx) consumers() []string { return f.o.ConsumerNames() }

func (f *fx) add(op Op) {
	op.Invoke, op.Complete = op.Invoke*ms, op.Complete*ms
	f.ops = append(f.ops, op)
}

// pub records one publish attempt of v; seq is its PubAck's sequence (ok).
func (f *fx) pub(v string, from, to int64, out history.Outcome, seq uint64, attempt int) {
	p, _, _ := parseValue(v)
	op := Op{Op: history.Op{Client: producerClient, Type: OpPublish, Outcome: out, Invoke: from, Complete: to},
		M: Msg{Producer: p, Value: v, Attempt: attempt}}
	switch out {
	case history.OK:
		op.M.Seq = seq
	case history.Info:
		op.Err = history.ErrTimeout
	default: // as the producer's recordErr (client.Classify) records it: no API error code
		op.Err = history.ErrNoResponders
	}
	f.add(op)
	f.seqs = max(f.seqs, seq)
}

// deliver records consumer c's worker w receiving v at seq, count times so
// far, its fetch invoked at from.
func (f *fx) deliver(c, w int, v string, seq, count uint64, from, to int64) {
	f.add(Op{Op: history.Op{Client: workerClient + w, Type: OpDeliver, Outcome: history.OK, Invoke: from, Complete: to},
		M: Msg{Consumer: f.consumers()[c], Value: v, Seq: seq, Delivered: count}})
	f.seqs = max(f.seqs, seq)
}

// ack records an ack, ack-sync or nak of a delivery.
func (f *fx) ack(t history.OpType, c, w int, v string, seq, count uint64, from, to int64, out history.Outcome) {
	f.add(Op{Op: history.Op{Client: workerClient + w, Type: t, Outcome: out, Invoke: from, Complete: to},
		M: Msg{Consumer: f.consumers()[c], Value: v, Seq: seq, Delivered: count}})
}

// got is a delivery at [at-2, at] followed by its ack in the cell's mode.
func (f *fx) got(c, w int, v string, seq, count uint64, at int64) {
	f.deliver(c, w, v, seq, count, at-2, at)
	if f.o.Ack == Sync {
		f.ack(OpAckSync, c, w, v, seq, count, at, at+1, history.OK)
	} else {
		f.ack(OpAck, c, w, v, seq, count, at, at, history.Info)
	}
}

func (f *fx) sample(c int, at int64, pending, ackPending uint64, leader string) {
	f.add(Op{Op: history.Op{Client: samplerClient + c, Type: OpConsumerInfo, Outcome: history.OK, Invoke: at - 1, Complete: at},
		M: Msg{Consumer: f.consumers()[c], Leader: leader, Pending: pending, AckPending: ackPending}})
}

func (f *fx) fault(name string, from, to int64) {
	v := true
	f.add(Op{Op: history.Op{Client: history.NemesisClient, Type: history.Fault, Fault: name, Verified: &v, Outcome: history.OK,
		Invoke: from, Complete: to}})
}

func (f *fx) run(from, to int64) {
	f.add(Op{Op: history.Op{Client: workerClient, Type: OpRun, Outcome: history.OK, Invoke: from, Complete: to}})
}

// drain records consumer c's drain; ok says it found nothing pending.
func (f *fx) drain(c int, from, to int64, ok bool, pending uint64) {
	op := Op{Op: history.Op{Client: drainClient + c, Type: OpDrain, Outcome: history.OK, Invoke: from, Complete: to},
		M: Msg{Consumer: f.consumers()[c]}}
	if !ok {
		op.Outcome, op.M.Pending, op.ErrMsg = history.Info, pending, "gave up: nothing delivered for 20s"
	}
	f.add(op)
}

func (f *fx) drainAll(from, to int64) {
	for c := range f.consumers() {
		f.drain(c, from, to, true, 0)
	}
}

// keep puts entries in the read-back.
func (f *fx) keep(seq uint64, v string) {
	p, _, _ := parseValue(v)
	f.stream = append(f.stream, history.Entry{Seq: seq, Key: p, Value: v})
}

// finish records the stream-info op (last sequence: the highest placed,
// unless given) and sorts the read-back.
func (f *fx) finish(at int64, last uint64) *Cell {
	if last == 0 {
		last = f.seqs
	}
	slices.SortFunc(f.stream, func(a, b history.Entry) int { return int(a.Seq) - int(b.Seq) })
	first := uint64(0)
	if len(f.stream) > 0 {
		first = f.stream[0].Seq
	}
	f.add(Op{Op: history.Op{Client: readbackClient, Type: OpStreamInfo, Outcome: history.OK, Invoke: at, Complete: at + 1},
		M: Msg{Stream: StreamName, Leader: "n1", LastSeq: last, FirstSeq: first, Msgs: uint64(len(f.stream))}})
	c := &Cell{Options: f.o, Consumers: f.consumers(), Ops: f.ops, Stream: f.stream, StreamRead: f.read,
		StreamComplete: f.complete && f.read && !f.torn}
	if f.torn && f.read {
		c.StreamTorn = len(f.stream) + 2 // after the header and the entries
	}
	return c
}

// standard records n values of producer p0 at sequences 1..n, from 10ms
// apart, each delivered once to every consumer and acked, and kept in the
// read-back for limits retention.
func (f *fx) standard(n int) {
	for k := 1; k <= n; k++ {
		t := int64(k * 10)
		v := Value("p0", k)
		f.pub(v, t, t+2, history.OK, uint64(k), 1)
		for c := range f.consumers() {
			f.got(c, c*f.o.Workers+k%f.o.Workers, v, uint64(k), 1, t+4)
		}
		if f.o.Retention == Limits {
			f.keep(uint64(k), v)
		}
	}
}

// wrap records the run's span [0, end], a sample of every consumer early
// (work pending) and just before end (none), and every consumer drained
// after the run; it returns the finished cell.
func (f *fx) wrap(end int64) *Cell { return f.wrapLast(end, 0) }

// wrapLast is wrap with the stream's last sequence given (0: the highest
// placed).
func (f *fx) wrapLast(end int64, last uint64) *Cell {
	f.run(0, end)
	for c := range f.consumers() {
		f.sample(c, 50, 1, 1, "n1")
		f.sample(c, end-10, 0, 0, "n1")
	}
	f.drainAll(end+1000, end+1100)
	return f.finish(end+1200, last)
}

// writeCell stores a cell as the workload does: queue.json, history.jsonl
// and (when read) stream.jsonl.
func writeCell(t testing.TB, dir string, c *Cell) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeCellFile(dir, c.Options); err != nil {
		t.Fatal(err)
	}
	rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range c.Ops {
		rec.Add(op.Stored())
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, StreamFile)
	_ = os.Remove(path)
	switch {
	case c.StreamTorn > 0:
		writeTornStream(t, path, c.Stream)
	case c.StreamRead:
		if err := history.WriteStream(path, c.Stream, c.StreamComplete); err != nil {
			t.Fatal(err)
		}
	}
}

// writeTornStream writes entries as a read-back that was cut short while
// writing the next: its header counts one more entry, and that entry's line
// (the next sequence) ends in the middle of its JSON, with no newline.
func writeTornStream(t testing.TB, path string, entries []history.Entry) {
	t.Helper()
	next := history.Entry{Seq: 1, Key: "p0", Value: "p0-0"}
	if n := len(entries); n > 0 {
		next.Seq = entries[n-1].Seq + 1
	}
	if err := history.WriteStream(path, append(slices.Clone(entries), next), true); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
	if err := os.WriteFile(path, b[:last+(len(b)-last)/2], 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
