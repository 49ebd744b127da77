package sources

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
)

// fixture is a hand-made cell: one limits origin (S_O1) with a mirror,
// sourced by S_ALL, three publishes acknowledged at 1, 2, 3, all copied.
// Each case below changes it to show one anomaly, or to stay clean.
func fixture() *Cell {
	o := Defaults
	o.Stream, o.Origins = "S", 1
	msgs := []Message{msg(1, "p0-1", 100), msg(2, "p0-2", 200), msg(3, "p0-3", 300)}
	sourced := make([]Message, len(msgs))
	for i, m := range msgs {
		sourced[i] = m
		sourced[i].Source, sourced[i].SourceSeq, sourced[i].Time = "S_O1", m.Seq, m.Time+5
	}
	c := &Cell{Options: o, Streams: []StreamRead{
		read("S_O1", RoleOrigin, msgs), read("S_MIRROR", RoleMirror, append([]Message(nil), msgs...)), read("S_ALL", RoleSourced, sourced)}}
	var ops []history.Op
	for i, m := range msgs {
		op := PublishOp(Publish{Origin: "S_O1", Producer: "p0", Value: m.Value, ID: m.Value, Attempt: 1, Seq: m.Seq}, 0, "n1")
		op.Invoke, op.Complete, op.Outcome = int64(i*10), int64(i*10+5), history.OK
		ops = append(ops, op)
	}
	c.Ops, _ = splitOps(ops)
	return c
}

func msg(seq uint64, v string, at int64) Message {
	return Message{Seq: seq, Subject: "s.o1.p0", Value: v, ID: v, Time: at}
}

func read(name string, r Role, msgs []Message) StreamRead {
	s := StreamRead{Name: name, Role: r, Complete: true, Msgs: uint64(len(msgs)), Messages: msgs}
	if len(msgs) > 0 {
		s.FirstSeq, s.LastSeq = msgs[0].Seq, msgs[len(msgs)-1].Seq
	}
	return s
}

// addOp appends an op to the cell's history, retyped.
func (c *Cell) addOp(op history.Op) {
	all := append(c.Ops.All, op)
	c.Ops, _ = splitOps(all)
}

func copyOp(at int64, head, copied uint64, final bool) history.Op {
	s := CopyState{Origins: []Head{{Name: "S_O1", LastSeq: head, Msgs: head}}, Final: final,
		Links: []Link{{From: "S_O1", To: "S_MIRROR", Copied: copied}, {From: "S_O1", To: "S_ALL", Copied: copied}}}
	return withData(history.Op{Type: OpCopy, Invoke: at, Complete: at, Outcome: history.OK}, s)
}

// silentOp is a sample whose copies last heard from the origin activeMs
// before it.
func silentOp(at int64, head, copied uint64, activeMs int64) history.Op {
	op := copyOp(at, head, copied, true)
	var s CopyState
	_ = json.Unmarshal(op.Data, &s)
	for i := range s.Links {
		s.Links[i].ActiveMs = &activeMs
	}
	return withData(op, s)
}

// sampleOp is a sample of both copies: behind or not, their leader, and
// an error reading them.
func sampleOp(at int64, head, copied uint64, activeMs int64, leader, readErr string) history.Op {
	op := silentOp(at, head, copied, activeMs)
	var s CopyState
	_ = json.Unmarshal(op.Data, &s)
	for i := range s.Links {
		s.Links[i].Leader, s.Links[i].Error = leader, readErr
	}
	return withData(op, s)
}

func fault(from, to int64) history.Op {
	return history.Op{Type: history.Fault, Client: -1, Invoke: from, Complete: to, Outcome: history.OK, Fault: "kill"}
}

func TestMirrorCopy(t *testing.T) {
	tests := []struct {
		name   string
		change func(c *Cell)
		want   checker.Verdict
		kind   string
	}{
		{"clean", func(*Cell) {}, checker.Valid, ""},
		{"missing", func(c *Cell) { c.Streams[1].Messages = c.Streams[1].Messages[:2] }, checker.Invalid, "missing"},
		{"different", func(c *Cell) { c.Streams[1].Messages[1].Value = "p0-9" }, checker.Invalid, "different"},
		{"extra", func(c *Cell) { c.Streams[1].Messages = append(c.Streams[1].Messages, msg(4, "p0-4", 400)) }, checker.Invalid, "extra"},
		{"shifted", func(c *Cell) {
			for i := range c.Streams[1].Messages {
				c.Streams[1].Messages[i].Seq++
			}
		}, checker.Invalid, "missing"},
		{"both empty", func(c *Cell) { c.Streams[0].Messages, c.Streams[1].Messages = nil, nil }, checker.Valid, ""},
		{"missing above what the last sample found copied: a stall, not a loss", func(c *Cell) {
			c.Streams[1].Messages = c.Streams[1].Messages[:2]
			c.addOp(copyOp(50, 3, 2, true))
		}, checker.Unknown, "not_copied"},
		{"a hole below what the last sample found copied", func(c *Cell) {
			c.Streams[1].Messages = append(c.Streams[1].Messages[:1], c.Streams[1].Messages[2])
			c.addOp(copyOp(50, 3, 3, true))
		}, checker.Invalid, "missing"},
		{"mirror unread", func(c *Cell) { c.Streams[1].Complete = false }, checker.Unknown, "unread"},
		{"no streams file", func(c *Cell) { c.Streams = nil }, checker.Unknown, "unread"},
	}
	for _, tt := range tests {
		c := fixture()
		tt.change(c)
		r := checkMirror(c, 5)
		if r.Verdict != tt.want || (tt.kind != "" && r.Counts[tt.kind] == 0) {
			t.Errorf("%s: %s %v: %s", tt.name, r.Verdict, r.Counts, r.Summary)
		}
	}
}

func TestSourceExactlyOnce(t *testing.T) {
	tests := []struct {
		name   string
		change func(c *Cell)
		want   checker.Verdict
		kind   string
	}{
		{"clean", func(*Cell) {}, checker.Valid, ""},
		{"missing", func(c *Cell) { c.Streams[2].Messages = c.Streams[2].Messages[1:] }, checker.Invalid, "missing"},
		{"duplicate", func(c *Cell) {
			d := c.Streams[2].Messages[0]
			d.Seq = 4
			c.Streams[2].Messages = append(c.Streams[2].Messages, d)
		}, checker.Invalid, "duplicate"},
		{"out of order", func(c *Cell) {
			m := c.Streams[2].Messages
			m[0].Seq, m[1].Seq = m[1].Seq, m[0].Seq
		}, checker.Invalid, "out_of_order"},
		{"origin lost an acknowledged message", func(c *Cell) {
			c.Streams[0].Messages = c.Streams[0].Messages[:2]
		}, checker.Invalid, "origin_lost"},
		{"a retry acknowledged as a duplicate naming no sequence, the origin lacks it", func(c *Cell) {
			op := PublishOp(Publish{Origin: "S_O1", Producer: "p0", Value: "p0-4", ID: "p0-4", Attempt: 2, Duplicate: true}, 0, "n1")
			op.Invoke, op.Complete, op.Outcome = 40, 41, history.OK
			c.addOp(op)
		}, checker.Invalid, "origin_lost"},
		{"an indeterminate publish the origin lacks", func(c *Cell) {
			op := PublishOp(Publish{Origin: "S_O1", Producer: "p0", Value: "p0-4", ID: "p0-4", Attempt: 1}, 0, "n1")
			op.Invoke, op.Complete, op.Outcome = 40, 40, history.Info // zero-length
			c.addOp(op)
		}, checker.Valid, ""},
		{"a repeated id the sourced stream dropped within its window", func(c *Cell) {
			c.Options.RepeatIDs = true
			r := msg(4, "p0-4", 100+int64(repeatWindow)-1) // stored in the origin just inside the namesake's window
			r.ID = "p0-1"
			c.Streams[0].Messages = append(c.Streams[0].Messages, r)
		}, checker.Valid, "dropped_as_duplicate"},
		{"a repeated id missing after the window", func(c *Cell) {
			c.Options.RepeatIDs = true
			r := msg(4, "p0-4", 105+int64(repeatWindow)) // the namesake's copy (at 105) is out of the window
			r.ID = "p0-1"
			c.Streams[0].Messages = append(c.Streams[0].Messages, r)
		}, checker.Invalid, "missing"},
		{"one body stored twice by the origin (a retry after a short window), each copied once", func(c *Cell) {
			again := msg(4, "p0-3", 1400)
			c.Streams[0].Messages = append(c.Streams[0].Messages, again)
			cp := again
			cp.Seq, cp.Source, cp.SourceSeq, cp.Time = 4, "S_O1", 4, 1405
			c.Streams[2].Messages = append(c.Streams[2].Messages, cp)
		}, checker.Valid, ""},
		{"a retry's second copy dropped by the sourced stream's window", func(c *Cell) {
			c.Options.RepeatIDs = true
			c.Streams[0].Messages = append(c.Streams[0].Messages, msg(4, "p0-3", 304))
		}, checker.Valid, "dropped_as_duplicate"},
		{"a work-queue origin holds nothing: a duplicate copy is still found", func(c *Cell) {
			c.Options.Retention = WorkQueue
			c.Streams[0].Messages = nil
			d := c.Streams[2].Messages[1]
			d.Seq = 4
			c.Streams[2].Messages = append(c.Streams[2].Messages, d)
		}, checker.Invalid, "duplicate"},
		{"a work-queue origin holds nothing: copies out of their origin's order", func(c *Cell) {
			c.Options.Retention = WorkQueue
			c.Streams[0].Messages = nil
			m := c.Streams[2].Messages
			m[1].Seq, m[2].Seq = m[2].Seq, m[1].Seq
		}, checker.Invalid, "out_of_order"},
		{"a work-queue origin holds nothing, every copy once in order", func(c *Cell) {
			c.Options.Retention = WorkQueue
			c.Streams[0].Messages = nil
		}, checker.Valid, ""},
		{"missing above what the last sample found copied: a stall, not a loss", func(c *Cell) {
			c.Streams[2].Messages = c.Streams[2].Messages[:2]
			c.addOp(copyOp(50, 3, 2, true))
		}, checker.Unknown, "not_copied"},
		{"a message missing, and only a later copy of its id there: not excused", func(c *Cell) {
			c.Options.RepeatIDs = true
			later := msg(4, "p0-4", 150)
			later.ID = "p0-1"
			c.Streams[0].Messages = append(c.Streams[0].Messages, later)
			cp := later
			cp.Source, cp.SourceSeq, cp.Time = "S_O1", 4, 155
			c.Streams[2].Messages = append(c.Streams[2].Messages[1:], cp) // p0-1 (seq 1) missing
		}, checker.Invalid, "missing"},
		{"sourced unread", func(c *Cell) { c.Streams[2].Error = "timeout" }, checker.Unknown, "unread"},
	}
	for _, tt := range tests {
		c := fixture()
		tt.change(c)
		r, _ := checkSource(c, 5)
		if r.Verdict != tt.want || (tt.kind != "" && r.Counts[tt.kind] == 0) {
			t.Errorf("%s: %s %v: %s", tt.name, r.Verdict, r.Counts, r.Summary)
		}
	}
}

func TestSourceStall(t *testing.T) {
	sec := int64(time.Second)
	tests := []struct {
		name string
		ops  []history.Op
		want checker.Verdict
		in   string // in the example's words
	}{
		{"caught up at once", []history.Op{fault(0, sec), copyOp(sec, 3, 3, false)}, checker.Valid, ""},
		{"caught up within the bound", []history.Op{fault(0, sec), copyOp(2*sec, 3, 1, false), copyOp(20*sec, 3, 3, false)}, checker.Valid, ""},
		{"a tie: caught up exactly at the heal", []history.Op{fault(0, sec), copyOp(sec, 3, 3, false)}, checker.Valid, ""},
		{"in contact, behind past the bound, caught up later", []history.Op{fault(0, sec), silentOp(2*sec, 3, 1, 200), silentOp(33*sec, 3, 1, 900),
			copyOp(40*sec, 3, 3, true)}, checker.Invalid, "still held origin sequence 1 of 3 32s after the heal"},
		{"a gap in the samples: behind, then caught up 39 s later, nothing between", []history.Op{fault(0, sec), silentOp(2*sec, 3, 1, 200),
			copyOp(40*sec, 3, 3, true)}, checker.Valid, ""},
		{"in contact, and a step-down ended it", []history.Op{fault(0, sec), silentOp(2*sec, 3, 1, 300), silentOp(33*sec, 3, 1, 500),
			withData(history.Op{Type: OpStepDown, Client: 900, Invoke: 34 * sec, Complete: 34 * sec, Outcome: history.OK}, StepDown{Stream: "S_ALL", Link: "S_O1 -> S_ALL"}), copyOp(36*sec, 3, 3, true)}, checker.Invalid, "ended it 2s later"},
		{"in contact, and a step-down did not help", []history.Op{fault(0, sec), silentOp(2*sec, 3, 1, 300),
			withData(history.Op{Type: OpStepDown, Client: 900, Invoke: 32 * sec, Complete: 32 * sec, Outcome: history.OK}, StepDown{Stream: "S_ALL", Link: "S_O1 -> S_ALL"}), silentOp(62*sec, 3, 1, 400)}, checker.Invalid, "did not end it"},
		{"the copy's info reported no Active: not in contact", []history.Op{fault(0, sec), copyOp(2*sec, 3, 1, false), copyOp(33*sec, 3, 1, false),
			copyOp(40*sec, 3, 3, true)}, checker.Valid, ""},
		{"silent, caught up within the server's retry backoff", []history.Op{fault(0, sec), silentOp(2*sec, 3, 1, 1500),
			silentOp(50*sec, 3, 1, 49000), copyOp(61*sec, 3, 3, true)}, checker.Valid, ""},
		{"silent past the server's longest retry", []history.Op{fault(0, sec), silentOp(2*sec, 3, 1, 1500),
			silentOp(140*sec, 3, 1, 139000)}, checker.Invalid, "held origin sequence 1 of 3"},
		{"in contact, not advancing, past the bound", []history.Op{fault(0, sec), silentOp(2*sec, 3, 1, 200),
			silentOp(33*sec, 3, 1, 900), copyOp(61*sec, 3, 3, true)}, checker.Invalid, "caught up 1m0s after the heal"},
		{"never heard from (-1), within the retry backoff", []history.Op{fault(0, sec), silentOp(2*sec, 3, 1, -1),
			silentOp(40*sec, 3, 1, -1), copyOp(45*sec, 3, 3, true)}, checker.Valid, ""},
		{"advancing, a few behind at every sample, in contact, for over 3 minutes", func() []history.Op {
			ops := []history.Op{fault(0, sec)}
			for t := int64(2); t < 200; t++ {
				ops = append(ops, sampleOp(t*sec, uint64(10*t+5), uint64(10*t), 5, "n1", ""))
			}
			return append(ops, copyOp(201*sec, 2005, 2005, true))
		}(), checker.Valid, ""},
		{"in contact at one sequence, then unreadable, then a new leader at the same sequence", []history.Op{fault(0, sec),
			sampleOp(2*sec, 3, 1, 200, "n1", ""), sampleOp(20*sec, 0, 0, 0, "", "context deadline exceeded"),
			sampleOp(36*sec, 3, 1, 200, "n2", ""), copyOp(37*sec, 3, 3, true)}, checker.Valid, ""},
		{"in contact at one sequence under two leaders in turn", []history.Op{fault(0, sec),
			sampleOp(2*sec, 3, 1, 200, "n1", ""), sampleOp(20*sec, 3, 1, 200, "n2", ""),
			sampleOp(36*sec, 3, 1, 200, "n2", ""), copyOp(37*sec, 3, 3, true)}, checker.Valid, ""},
		{"silent at one sequence, two samples 140 s apart", []history.Op{fault(0, sec),
			sampleOp(2*sec, 3, 1, 11000, "n1", ""), sampleOp(144*sec, 3, 1, 12000, "n1", "")}, checker.Invalid, "held origin sequence 1 of 3"},
		{"no faults, behind only briefly", []history.Op{copyOp(sec, 3, 2, false), copyOp(2*sec, 3, 3, false)}, checker.Valid, ""},
		{"no sample after the heal", []history.Op{copyOp(sec, 3, 3, false), fault(2*sec, 3*sec)}, checker.Unknown, ""},
		{"no sample at all", []history.Op{fault(2*sec, 3*sec)}, checker.Unknown, ""},
	}
	for _, tt := range tests {
		c := fixture()
		for _, op := range tt.ops {
			c.addOp(op)
		}
		r := checkStall(c, 5)
		if r.Verdict != tt.want {
			t.Errorf("%s: %s %v: %s", tt.name, r.Verdict, r.Counts, r.Summary)
		}
		if tt.in != "" && !slices.ContainsFunc(r.Anomalies, func(a checker.Anomaly) bool { return strings.Contains(a.Description, tt.in) }) {
			t.Errorf("%s: examples %+v, want %q in one", tt.name, r.Anomalies, tt.in)
		}
	}
}

func TestWorkQueueOrigin(t *testing.T) {
	state := func(node string, msgs, first, last uint64) OriginState {
		return OriginState{Origin: "S_O1", Node: node, State: &cluster.StreamState{Msgs: msgs, FirstSeq: first, LastSeq: last}}
	}
	agree := []OriginState{state("n1", 0, 4, 3), state("n2", 0, 4, 3), state("n3", 0, 4, 3)}
	tests := []struct {
		name   string
		change func(c *Cell)
		want   checker.Verdict
		kind   string
	}{
		{"clean: all removed and sourced", func(*Cell) {}, checker.Valid, ""},
		{"removed but never sourced", func(c *Cell) { c.Streams[1].Messages = c.Streams[1].Messages[:2] }, checker.Invalid, "removed_undelivered"},
		{"still held, not yet sourced", func(c *Cell) {
			c.Streams[0].Messages = c.Streams[1].Messages[2:]
			c.Streams[1].Messages = c.Streams[1].Messages[:2]
		}, checker.Valid, ""},
		{"a removed repeat of an id the sourced stream holds: maybe dropped in its window", func(c *Cell) {
			c.Options.RepeatIDs = true
			op := PublishOp(Publish{Origin: "S_O1", Producer: "p0", Value: "p0-4", ID: "p0-1", Repeat: true, Attempt: 1, Seq: 4}, 0, "n1")
			op.Invoke, op.Complete, op.Outcome = 40, 41, history.OK
			c.addOp(op)
		}, checker.Unknown, "dropped_or_lost"},
		{"replicas disagree", func(c *Cell) { c.OriginStates[2] = state("n3", 3, 1, 3) }, checker.Invalid, "replicas_disagree"},
		{"a replica unread", func(c *Cell) { c.OriginStates[1].State, c.OriginStates[1].Error = nil, "timeout" }, checker.Unknown, "replicas_unread"},
	}
	for _, tt := range tests {
		c := fixture()
		c.Options.Retention = WorkQueue
		c.Streams = []StreamRead{read("S_O1", RoleOrigin, nil), c.Streams[2]}
		c.OriginStates = append([]OriginState(nil), agree...)
		tt.change(c)
		r := checkWorkQueue(c, 5)
		if r.Verdict != tt.want || (tt.kind != "" && r.Counts[tt.kind] == 0) {
			t.Errorf("%s: %s %v: %s", tt.name, r.Verdict, r.Counts, r.Summary)
		}
	}
}

// The consumers' view turns each publish into a queue publish of its
// value, with no sequence, and keeps op indexes.
func TestConsumerView(t *testing.T) {
	c := fixture()
	ops := make([]queue.Op, len(c.Ops.All))
	for i, op := range c.Ops.All {
		ops[i] = queue.Op{Op: op}
	}
	got := consumerView(c, ops, map[string]bool{"p0-2": true})
	for i, op := range got {
		want := history.OK
		if i == 1 {
			want = history.Info // explained as a dropped duplicate
		}
		if op.Type != queue.OpPublish || op.M.Value != c.Ops.Publishes[i].Value || op.M.Seq != 0 || op.Outcome != want {
			b, _ := json.Marshal(op)
			t.Errorf("op %d: %s", i, b)
		}
	}
}
