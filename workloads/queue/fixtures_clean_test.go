package queue

// cleanFixtures are valid for every checker that applies: allowed
// behaviour that a careless checker would flag.
var cleanFixtures = map[string]fixture{
	"clean": {doc: "limits, sync acks: a nak redelivered at once, a skip redelivered after the ack wait, a timed-out publish retried and deduplicated, an indeterminate and a failed publish never stored",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(20)
			v := Value("p1", 1)
			f.pub(v, 300, 302, ok, 21, 1)
			f.deliver(0, 0, v, 21, 1, 301, 304)
			f.ack(OpNak, 0, 0, v, 21, 1, 304, 304, info)
			f.got(0, 1, v, 21, 2, 307)
			f.got(1, 2, v, 21, 1, 305)
			f.keep(21, v)
			v = Value("p1", 2)
			f.pub(v, 310, 312, ok, 22, 1)
			f.deliver(0, 0, v, 22, 1, 311, 314) // left unacked
			f.got(0, 1, v, 22, 2, 5321)
			f.got(1, 2, v, 22, 1, 315)
			f.keep(22, v)
			v = Value("p1", 3)
			f.pub(v, 400, 2400, info, 0, 1)
			f.pubDup(v, 2500, 2502, 23, 2)
			f.got(0, 0, v, 23, 1, 410)
			f.got(1, 2, v, 23, 1, 411)
			f.keep(23, v)
			f.pub(Value("p1", 4), 2600, 4600, info, 0, 1)
			f.pub(Value("p1", 5), 4700, 4701, fail, 0, 1)
			return f.wrap(6000)
		}},
	"clean_ties": {doc: "equal timestamps are concurrent: an ack confirmed at the instant a redelivery's fetch began, a PubAck at the instant the next publish began, two deliveries with one count where one ends as the other begins, a gap of exactly the stall bound; zero-length ops",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(5)
			a, b := Value("p1", 1), Value("p1", 2)
			f.pub(a, 100, 110, ok, 7, 1)
			f.pub(b, 110, 110, ok, 6, 1) // zero-length, begun as a's ack arrived, stored before it
			f.keep(6, b)
			f.keep(7, a)
			f.deliver(0, 0, a, 7, 1, 120, 122)
			f.ack(OpAckSync, 0, 0, a, 7, 1, 122, 5200, ok)
			f.deliver(0, 1, a, 7, 2, 5200, 5200) // zero-length, fetched as the ack was confirmed
			f.ack(OpAckSync, 0, 1, a, 7, 2, 5200, 5201, ok)
			f.got(1, 2, a, 7, 1, 130)
			f.deliver(0, 0, b, 6, 1, 200, 205)
			f.deliver(0, 1, b, 6, 1, 205, 207)
			f.ack(OpAckSync, 0, 0, b, 6, 1, 205, 206, ok)
			f.got(1, 3, b, 6, 1, 210)
			// A consumer that shows work pending and then delivers nothing
			// for exactly the stall bound (20s) is not stalled.
			for i, at := range []int64{10000, 30000} {
				v := Value("p1", 3+i)
				f.pub(v, at-10, at-8, ok, uint64(8+i), 1)
				f.keep(uint64(8+i), v)
				f.deliver(0, 0, v, uint64(8+i), 1, at, at)
				f.ack(OpAckSync, 0, 0, v, uint64(8+i), 1, at, at, ok)
				f.got(1, 2, v, uint64(8+i), 1, at+3)
			}
			f.sample(0, 10000, 1, 0, "n1")
			f.run(0, 40000)
			f.drainAll(41000, 41100)
			return f.finish(41200, 0)
		}},
	"clean_plain_ack": {doc: "fire-and-forget acks: a message acked and redelivered after the ack wait is allowed",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Ack = FireAndForget })
			f.standard(10)
			f.got(0, 1, Value("p0", 5), 5, 2, 5200)
			return f.wrap(6000)
		}},
	"clean_workqueue": {doc: "work queue, one consumer, three workers: a nak handed to another worker at once, a skip handed to another after the ack wait, nothing left in the stream",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Retention, o.Consumers, o.Workers = WorkQueue, 1, 3 })
			f.standard(10)
			v := Value("p0", 11)
			f.pub(v, 200, 202, ok, 11, 1)
			f.deliver(0, 0, v, 11, 1, 201, 203)
			f.ack(OpNak, 0, 0, v, 11, 1, 203, 203, info)
			f.got(0, 1, v, 11, 2, 206)
			v = Value("p0", 12)
			f.pub(v, 210, 212, ok, 12, 1)
			f.deliver(0, 0, v, 12, 1, 211, 213)
			f.got(0, 2, v, 12, 2, 5300)
			return f.wrap(6000)
		}},
	"clean_ordered": {doc: "two ordered push consumers deliver the limits stream in sequence order, one across a resubscription",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Pattern = Ordered })
			for k := 1; k <= 10; k++ {
				t := int64(k * 10)
				v := Value("p0", k)
				f.pub(v, t, t+2, ok, uint64(k), 1)
				f.keep(uint64(k), v)
				f.deliver(0, 0, v, uint64(k), 1, t+3, t+3)
				f.deliver(1, 1, v, uint64(k), 1, t+4, t+4)
			}
			return f.wrap(2000)
		}},
	"clean_interest": {doc: "interest retention, two consumers: everything acked by both, nothing left",
		build: func() *Cell {
			f := newFx(func(o *Options) { o.Retention = Interest })
			f.standard(10)
			return f.wrap(2000)
		}},
	"clean_excused": {doc: "redeliveries before the ack wait inside a fault window and around a consumer leader change: allowed",
		build: func() *Cell {
			f := newFx(nil)
			f.standard(10)
			f.fault("kill", 1500, 3000)
			v := Value("p0", 11)
			f.pub(v, 990, 992, ok, 11, 1)
			f.deliver(0, 0, v, 11, 1, 1000, 1002)
			f.got(0, 1, v, 11, 2, 2002)
			f.got(1, 2, v, 11, 1, 1003)
			f.keep(11, v)
			f.sample(0, 4000, 0, 1, "n1")
			f.sample(0, 5000, 0, 1, "n2")
			v = Value("p0", 12)
			f.pub(v, 4190, 4192, ok, 12, 1)
			f.deliver(0, 0, v, 12, 1, 4200, 4202)
			f.got(0, 1, v, 12, 2, 4502)
			f.got(1, 2, v, 12, 1, 4203)
			f.keep(12, v)
			return f.wrap(8000)
		}},
	"dup_outside_window": {doc: "one value stored twice, its publishes further apart than the duplicate window: allowed",
		build: func() *Cell { return storedTwice(1) }},
}
