package queue

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// syntheticCell is a healthy limits cell of msgs messages from 3
// producers, each delivered to one consumer by one of 3 workers and
// AckSynced, 1% left unacked and redelivered after the ack wait, a sample a second, the
// stream read back whole: 3 ops a message.
func syntheticCell(msgs int) *Cell {
	o := Defaults
	o.Producers, o.Consumers, o.Workers = 3, 1, 3
	c := &Cell{Options: o, Consumers: o.ConsumerNames(), StreamRead: true, StreamComplete: true}
	ops := make([]Op, 0, 3*msgs+msgs/100*2+msgs/1000+8)
	stream := make([]history.Entry, 0, msgs)
	const step = int64(100_000) // 10k messages a second
	op := func(client int, t history.OpType, from, to int64, m Msg) Op {
		return Op{Op: history.Op{Client: client, Type: t, Outcome: history.OK, Invoke: from, Complete: to}, M: m}
	}
	ops = append(ops, op(workerClient, OpRun, 0, int64(msgs)*step, Msg{}))
	for k := 1; k <= msgs; k++ {
		p := ProducerID(k % 3)
		v := Value(p, k/3+1)
		t, seq := int64(k)*step, uint64(k)
		w := workerClient + k%3
		ops = append(ops,
			op(k%3, OpPublish, t, t+2e6, Msg{Producer: p, Value: v, Seq: seq, Attempt: 1}),
			op(w, OpDeliver, t, t+3e6, Msg{Consumer: "c0", Value: v, Seq: seq, Delivered: 1}))
		if k%100 != 0 {
			ops = append(ops, op(w, OpAckSync, t+3e6, t+4e6, Msg{Consumer: "c0", Value: v, Seq: seq, Delivered: 1}))
		} else { // left unacked, redelivered after the ack wait, acked then
			r := t + int64(o.AckWait.D()) + 1e6
			ops = append(ops,
				op(w, OpDeliver, r, r+1e6, Msg{Consumer: "c0", Value: v, Seq: seq, Delivered: 2}),
				op(w, OpAckSync, r+1e6, r+2e6, Msg{Consumer: "c0", Value: v, Seq: seq, Delivered: 2}))
		}
		if k%10000 == 0 {
			ops = append(ops, op(samplerClient, OpConsumerInfo, t, t+1e6, Msg{Consumer: "c0", Leader: "n1", Pending: 3, AckPending: 2}))
		}
		stream = append(stream, history.Entry{Seq: seq, Key: p, Value: v})
	}
	end := int64(msgs+1) * step
	ops = append(ops,
		op(drainClient, OpDrain, end, end+1e9, Msg{Consumer: "c0"}),
		op(readbackClient, OpStreamInfo, end+1e9, end+2e9, Msg{Stream: StreamName, LastSeq: uint64(msgs), FirstSeq: 1, Msgs: uint64(msgs)}))
	c.Ops, c.Stream = ops, stream
	return c
}

func TestSyntheticCellValid(t *testing.T) {
	c := syntheticCell(30_000)
	for _, r := range RunCheckers(c, 0) {
		if r.Verdict != checker.Valid {
			t.Errorf("%s: %s %s %+v", r.Name, r.Verdict, r.Summary, r.Anomalies)
		}
	}
}

// BenchmarkCheckers1M runs every checker on a 1,000,000-message history
// (3.01M ops, the stream read back whole) and reports messages per
// wall-clock second and the CPU seconds one pass takes (GC included).
func BenchmarkCheckers1M(b *testing.B) {
	const msgs = 1_000_000
	c := syntheticCell(msgs)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		for _, r := range RunCheckers(c, 0) {
			if r.Verdict != checker.Valid {
				b.Fatalf("%s: %s", r.Name, r.Summary)
			}
		}
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(msgs)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(len(c.Ops)), "ops")
}

// BenchmarkCheckFromFiles100k is Check as the pipeline and chaos check
// call it, reading history.jsonl and stream.jsonl of 100,000 messages
// (301k ops) from disk: the cost of parsing beside the checkers'.
func BenchmarkCheckFromFiles100k(b *testing.B) {
	const msgs = 100_000
	dir := b.TempDir()
	writeCell(b, dir, syntheticCell(msgs))
	b.ResetTimer()
	cpu0 := cpuTime()
	for range b.N {
		res, err := workload{}.Check(dir, checker.Options{})
		if err != nil || checker.Worst(res) != checker.Valid {
			b.Fatalf("%v %+v", err, res)
		}
	}
	b.ReportMetric(float64(msgs)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
