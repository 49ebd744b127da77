package queue

import (
	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// fixture is one testdata cell: how it is built and what each checker must
// answer. A checker that applies and is not in want must be valid; kinds
// are the counts that must be above zero.
type fixture struct {
	build func() *Cell
	want  map[string]checker.Verdict
	kinds []string
	doc   string
}

const (
	ok   = history.OK
	info = history.Info
	fail = history.Fail
)

// fixtures are every testdata cell: the clean ones and one or more per
// rule with its anomaly.
var fixtures = func() map[string]fixture {
	all := map[string]fixture{}
	for _, m := range []map[string]fixture{cleanFixtures, anomalyFixtures, auditFixtures} {
		for k, v := range m {
			all[k] = v
		}
	}
	return all
}()

// anomalyFixtures each hold an anomaly (or an undecidable case) that the
// checkers in want must report.
var anomalyFixtures = map[string]fixture{
	"lost": {want: want(CheckLost, checker.Invalid), kinds: []string{"lost"},
		doc: "work queue: an acknowledged publish no consumer received and the stream does not hold",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Retention, o.Consumers = WorkQueue, 1 })
			f.standard(10)
			f.pub(Value("p0", 11), 200, 202, ok, 11, 1)
			return f.wrap(2000)
		}},
	"lost_limits": {want: want(CheckLost, checker.Invalid, CheckIntegrity, checker.Invalid), kinds: []string{"lost", "missing_from_stream"},
		doc: "limits: the same loss, which the limits stream's read-back also lacks",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			f.pub(Value("p0", 11), 200, 202, ok, 11, 1)
			return f.wrap(2000)
		}},
	"lost_unknown": {want: want(CheckLost, checker.Unknown, CheckIntegrity, checker.Unknown), kinds: []string{"unconfirmed", "incomplete_readback"},
		doc: "work queue, read-back incomplete: an undelivered acknowledged value is unknown, not lost",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Retention, o.Consumers = WorkQueue, 1 })
			f.standard(10)
			f.pub(Value("p0", 11), 200, 202, ok, 11, 1)
			f.complete = false
			return f.wrap(2000)
		}},
	"lost_torn_readback": {want: want(CheckLost, checker.Unknown, CheckIntegrity, checker.Unknown), kinds: []string{"unconfirmed", "incomplete_readback"},
		doc: "limits: an acknowledged value no consumer received, while stream.jsonl is cut short at its line: unknown, the torn line named",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			f.pub(Value("p0", 11), 200, 202, ok, 11, 1)
			f.torn = true
			return f.wrap(2000)
		}},
	"skipped": {want: want(CheckLost, checker.Invalid), kinds: []string{"skipped"},
		doc: "limits: a stored, acknowledged value one drained consumer never received",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			v := Value("p0", 11)
			f.pub(v, 200, 202, ok, 11, 1)
			f.got(0, 0, v, 11, 1, 205)
			f.keep(11, v)
			return f.wrap(2000)
		}},
	"unexpected": {want: want(CheckUnexpected, checker.Invalid), kinds: []string{"unexpected_delivery"},
		doc: "work queue: a delivery of a value no producer published",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Retention, o.Consumers = WorkQueue, 1 })
			f.standard(10)
			f.got(0, 0, "p9-1", 11, 1, 205)
			return f.wrap(2000)
		}},
	"dup_after_ack": {want: want(CheckDuplicate, checker.Invalid), kinds: []string{"after_confirmed_ack"},
		doc: "a delivery fetched after the message's AckSync was confirmed",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			f.got(0, 1, Value("p0", 5), 5, 2, 5102)
			return f.wrap(6000)
		}},
	"dup_stored_twice": {want: want(CheckDuplicate, checker.Invalid), kinds: []string{"stored_twice"},
		doc:   "a timed-out publish stored, and its retry with the same Nats-Msg-Id stored again, within the window",
		build: func() *Cell { return storedTwice(0) }},
	"order_producer": {want: want(CheckOrder, checker.Invalid), kinds: []string{"producer_order"},
		doc: "p0-3, published after p0-2 was acknowledged at 3, stored at 2",
		build: func() *Cell {
			f := newFx(nil)
			for k, seq := range []uint64{1, 3, 2} {
				t, v := int64(k*10+10), Value("p0", k+1)
				f.pub(v, t, t+2, ok, seq, 1)
				f.keep(seq, v)
				f.got(0, 0, v, seq, 1, t+4)
				f.got(1, 2, v, seq, 1, t+4)
			}
			return f.wrap(2000)
		}},
	"order_ordered": {want: want(CheckOrder, checker.Invalid), kinds: []string{"ordered_consumer"},
		doc: "an ordered consumer hands over sequence 3 after 4",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Pattern = Ordered })
			for k := 1; k <= 5; k++ {
				t := int64(k * 10)
				f.pub(Value("p0", k), t, t+2, ok, uint64(k), 1)
				f.keep(uint64(k), Value("p0", k))
				f.deliver(1, 1, Value("p0", k), uint64(k), 1, t+3, t+3)
			}
			for i, k := range []int{1, 2, 4, 3, 5} {
				t := int64(100 + i)
				f.deliver(0, 0, Value("p0", k), uint64(k), 1, t, t)
			}
			return f.wrap(2000)
		}},
	"redelivery_count": {want: want(CheckRedelivery, checker.Invalid), kinds: []string{"count_not_increasing"},
		doc: "a redelivery after the ack wait whose count did not grow",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			v := Value("p0", 11)
			f.pub(v, 200, 202, ok, 11, 1)
			f.deliver(0, 0, v, 11, 1, 203, 205)
			f.got(0, 1, v, 11, 1, 5300)
			f.got(1, 2, v, 11, 1, 206)
			f.keep(11, v)
			return f.wrap(6000)
		}},
	"redelivery_max": {want: want(CheckRedelivery, checker.Invalid), kinds: []string{"beyond_max_deliver"},
		doc: "MaxDeliver 2, a third delivery",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.MaxDeliver = 2 })
			f.standard(10)
			v := Value("p0", 11)
			f.pub(v, 200, 202, ok, 11, 1)
			f.deliver(0, 0, v, 11, 1, 203, 205)
			f.deliver(0, 1, v, 11, 2, 5300, 5302)
			f.got(0, 0, v, 11, 3, 10402)
			f.got(1, 2, v, 11, 1, 206)
			f.keep(11, v)
			return f.wrap(11000)
		}},
	"redelivery_early": {want: want(CheckRedelivery, checker.Invalid), kinds: []string{"early"},
		doc: "a redelivery 1s after the fetch of an unacked delivery, ack wait 5s, no nak, no fault, one leader",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			v := Value("p0", 11)
			f.pub(v, 200, 202, ok, 11, 1)
			f.deliver(0, 0, v, 11, 1, 203, 205)
			f.got(0, 1, v, 11, 2, 1205)
			f.got(1, 2, v, 11, 1, 206)
			f.keep(11, v)
			return f.wrap(6000)
		}},
	"redelivery_dropped": {want: want(CheckRedelivery, checker.Invalid), kinds: []string{"dropped"},
		doc: "a delivery never acked, yet the drain found nothing pending",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			v := Value("p0", 11)
			f.pub(v, 200, 202, ok, 11, 1)
			f.deliver(0, 0, v, 11, 1, 203, 205)
			f.got(1, 2, v, 11, 1, 206)
			f.keep(11, v)
			return f.wrap(6000)
		}},
	"wq_not_removed": {want: want(CheckWorkQueue, checker.Invalid), kinds: []string{"acked_not_removed"},
		doc: "work queue: a message still in the stream after its AckSync was confirmed",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Retention, o.Consumers = WorkQueue, 1 })
			f.standard(10)
			f.keep(5, Value("p0", 5))
			return f.wrap(2000)
		}},
	"wq_concurrent": {want: want(CheckWorkQueue, checker.Invalid, CheckRedelivery, checker.Invalid), kinds: []string{"concurrent", "early"},
		doc: "work queue: a second worker gets a message 1s after the first fetched it, ack wait 5s",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Retention, o.Consumers, o.Workers = WorkQueue, 1, 3 })
			f.standard(10)
			v := Value("p0", 11)
			f.pub(v, 200, 202, ok, 11, 1)
			f.deliver(0, 0, v, 11, 1, 203, 205)
			f.got(0, 1, v, 11, 2, 1205)
			return f.wrap(6000)
		}},
	"stall": {want: want(CheckStall, checker.Invalid), kinds: []string{"stalled"},
		doc: "after the heal at 1s, 24s without a delivery while a sample at 3s showed one message pending",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			f.fault("pause", 0, 1000)
			v := Value("p0", 11)
			f.pub(v, 2000, 2002, ok, 11, 1)
			f.sample(0, 3000, 1, 0, "n1")
			f.got(0, 0, v, 11, 1, 25000)
			f.got(1, 2, v, 11, 1, 2005)
			f.keep(11, v)
			return f.wrap(30000)
		}},
	"stall_not_drained": {want: want(CheckStall, checker.Invalid, CheckLost, checker.Unknown), kinds: []string{"not_drained", "undrained"},
		doc: "a consumer's drain gave up with a message pending that it never received",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			v := Value("p0", 11)
			f.pub(v, 200, 202, ok, 11, 1)
			f.got(1, 2, v, 11, 1, 205)
			f.keep(11, v)
			f.run(0, 2000)
			f.drain(0, 3000, 23000, false, 1)
			f.drain(1, 3000, 3100, true, 0)
			return f.finish(23100, 0)
		}},
	"integrity_beyond_last": {want: want(CheckIntegrity, checker.Invalid), kinds: []string{"beyond_last_sequence", "missing_from_stream"},
		doc: "limits: a message acknowledged and delivered at 11 while the stream's last sequence after the run is 10",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			v := Value("p0", 11)
			f.pub(v, 200, 202, ok, 11, 1)
			f.got(0, 0, v, 11, 1, 205)
			f.got(1, 2, v, 11, 1, 206)
			return f.wrapLast(2000, 10)
		}},
	"integrity_reused": {want: want(CheckIntegrity, checker.Invalid, CheckLost, checker.Invalid), kinds: []string{"sequence_conflict", "lost"},
		doc: "limits: sequence 11 acknowledged for p0-11, then holding p1-1: the first message is gone",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			f.pub(Value("p0", 11), 200, 202, ok, 11, 1)
			v := Value("p1", 1)
			f.pub(v, 300, 302, ok, 11, 1)
			f.got(0, 0, v, 11, 1, 305)
			f.got(1, 2, v, 11, 1, 306)
			f.keep(11, v)
			return f.wrap(2000)
		}},
	"interest_retained": {want: want(CheckIntegrity, checker.Invalid), kinds: []string{"retained"},
		doc: "interest: a message left after both consumers acked it and were drained",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Retention = Interest })
			f.standard(10)
			f.keep(3, Value("p0", 3))
			return f.wrap(2000)
		}},
}

// storedTwice: p0-5's first attempt times out but is stored at 5, its retry
// is stored again at 6, the attempts 2.1s apart; window is the duplicate
// window in seconds (0: the default 2 minutes).
func storedTwice(window int) *Cell {
	f := newFx(func(o *Options) {
		if window > 0 {
			o.DuplicateWindow = Duration(int64(window) * int64(1e9))
		}
	})
	f.standard(4)
	v := Value("p0", 5)
	f.pub(v, 100, 2100, info, 0, 1)
	f.pub(v, 2200, 2202, ok, 6, 2)
	for _, x := range []struct {
		seq uint64
		at  int64
	}{{5, 500}, {6, 2300}} {
		seq, at := x.seq, x.at
		f.keep(seq, v)
		for c := range f.consumers() {
			f.got(c, c*2, v, seq, 1, at+int64(c))
		}
	}
	return f.wrap(3000)
}

func want(kv ...any) map[string]checker.Verdict {
	m := map[string]checker.Verdict{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(checker.Verdict)
	}
	return m
}

// pubDup records a retry that the stream deduplicated: its PubAck carries
// the first copy's sequence and Duplicate.
func (f *fx) pubDup(v string, from, to int64, seq uint64, attempt int) {
	f.pub(v, from, to, ok, seq, attempt)
	f.ops[len(f.ops)-1].Err = ErrDuplicate
}
