package queue

import "github.com/jetstream-chaos/jetstream-chaos/checker"

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
