package queue

import (
	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// auditFixtures pin the rules the audit's cells
// (cmd/chaos/testdata/audit/q) found wrong.
var auditFixtures = map[string]fixture{
	"clean_stale_nak": {doc: "limits, three workers: a nak of the first delivery sent after the ack wait had redelivered it to another worker queues a third delivery at once",
		build: func() *Cell { return staleNak(Limits) }},
	"clean_wq_stale_nak": {doc: "work queue: the same late nak hands the message to a third worker while the second holds it",
		build: func() *Cell { return staleNak(WorkQueue) }},
	"redelivery_nak_spent": {want: want(CheckRedelivery, checker.Invalid), kinds: []string{"early"},
		doc: "a nak redelivered at once, then a second early redelivery with only a nak that failed: one nak queues one redelivery",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Consumers, o.Workers = 1, 3 })
			f.standard(10)
			v := Value("p0", 11)
			f.pub(v, 200, 202, ok, 11, 1)
			f.deliver(0, 0, v, 11, 1, 203, 205)
			f.ack(OpNak, 0, 0, v, 11, 1, 205, 205, info)
			f.deliver(0, 1, v, 11, 2, 206, 208)
			f.ack(OpNak, 0, 1, v, 11, 2, 208, 209, fail)
			f.got(0, 2, v, 11, 3, 1210)
			f.keep(11, v)
			return f.wrap(6000)
		}},
	"redelivery_nak_tie": {want: want(CheckRedelivery, checker.Invalid), kinds: []string{"early"},
		doc: "an early redelivery received at the instant the nak of the delivery before it was sent: concurrent, so the nak did not queue it",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Consumers, o.Workers = 1, 2 })
			f.standard(10)
			v := Value("p0", 11)
			f.pub(v, 200, 202, ok, 11, 1)
			f.deliver(0, 0, v, 11, 1, 203, 205)
			f.ack(OpNak, 0, 0, v, 11, 1, 1210, 1210, info)
			f.got(0, 1, v, 11, 2, 1210)
			f.keep(11, v)
			return f.wrap(6000)
		}},
	"clean_refused_retried": {doc: "a value refused (no responders) then indeterminate (timeout) and stored, and one refused (10077) then acknowledged: neither failed at every attempt",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			v := Value("p1", 1)
			f.pub(v, 200, 201, fail, 0, 1)
			f.pub(v, 300, 2300, info, 0, 2)
			f.keep(11, v)
			f.got(0, 0, v, 11, 1, 400)
			f.got(1, 2, v, 11, 1, 401)
			v = Value("p1", 2)
			refused(f, v, 2400, 1)
			f.pub(v, 2500, 2502, ok, 12, 2)
			f.keep(12, v)
			f.got(0, 0, v, 12, 1, 2505)
			f.got(1, 2, v, 12, 1, 2506)
			return f.wrap(4000)
		}},
	"unexpected_refused_stored": {want: want(CheckUnexpected, checker.Invalid, CheckStall, checker.Unknown), kinds: []string{"failed_publish_applied", "no_drain"},
		doc: "limits, interrupted before the drain: a value refused at both attempts (no responders, then 10077) yet in the stream read back, delivered to no one yet",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			v := Value("p1", 1)
			f.pub(v, 200, 201, fail, 0, 1)
			refused(f, v, 300, 2)
			f.keep(11, v)
			f.run(0, 400)
			return f.finish(500, 11)
		}},
	"unexpected_refused_delivered": {want: want(CheckUnexpected, checker.Invalid), kinds: []string{"failed_publish_applied"},
		doc: "work queue: a value refused (10077) yet delivered, acked and so removed",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Retention, o.Consumers = WorkQueue, 1 })
			f.standard(10)
			v := Value("p1", 1)
			refused(f, v, 200, 1)
			f.got(0, 0, v, 11, 1, 205)
			return f.wrap(2000)
		}},
	"skipped_last_of_64": {want: want(CheckLost, checker.Invalid), kinds: []string{"skipped"},
		doc: "limits, 64 consumers (the most --consumers allows): the last one never received the one stored, acknowledged message, yet its drain found nothing pending",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Producers, o.Consumers, o.Workers = 1, 64, 1 })
			v := Value("p0", 1)
			f.pub(v, 10, 12, ok, 1, 1)
			f.keep(1, v)
			for c := range 63 {
				f.got(c, c, v, 1, 1, 20)
			}
			return f.wrap(2000)
		}},
}

// refused records a publish attempt of v that the stream refused with a
// JetStream API error (10077, maximum messages exceeded), as the
// producer's recordErr (client.Classify) records it.
func refused(f *fx, v string, at int64, attempt int) {
	f.pub(v, at, at+1, fail, 0, attempt)
	op := &f.ops[len(f.ops)-1]
	op.Err, op.ErrCode, op.ErrMsg = history.ErrOther, 10077, "nats: API error: code=400 err_code=10077 description=maximum messages exceeded"
}

// staleNak: worker 0 receives p0-11 and naks it only after the ack wait,
// once the server has redelivered it to worker 1; processNak (nats-server
// consumer.go) accepts a nak of any delivery of a pending message, so
// worker 2 gets it at once, 116ms after worker 1's fetch began.
func staleNak(retention Retention) *Cell {
	f := newFx(func(o *Options) { o.Retention, o.Consumers, o.Workers = retention, 1, 3 })
	f.standard(10)
	v := Value("p0", 11)
	f.pub(v, 200, 202, ok, 11, 1)
	f.deliver(0, 0, v, 11, 1, 210, 212)
	f.deliver(0, 1, v, 11, 2, 5100, 5212)
	f.ack(OpNak, 0, 0, v, 11, 1, 5213, 5213, info)
	f.got(0, 2, v, 11, 3, 5216)
	if retention == Limits {
		f.keep(11, v)
	}
	return f.wrap(8000)
}
