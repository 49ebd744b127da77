package queue

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// ackTimeout bounds one AckSync; one that times out is indeterminate.
const ackTimeout = 2 * time.Second

// puller is one pull worker: its own connection, a handle on one durable
// consumer, one Fetch at a time.
type puller struct {
	i      *instance
	client int
	name   string // the consumer
	nc     *nats.Conn
	cons   jetstream.Consumer
	rng    *rand.Rand
	drain  bool // the final drain: ack everything, never nak or skip
}

func (i *instance) newPuller(ctx context.Context, id, node int, name string) (*puller, error) {
	nc, err := i.connect(ctx, node, fmt.Sprintf("queue-%s-w%d", name, id))
	if err != nil {
		return nil, fmt.Errorf("worker %d of %s: connect: %w", id, name, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	w := &puller{i: i, client: id, name: name, nc: nc, rng: rand.New(rand.NewPCG(i.o.Seed, uint64(id)))}
	// The consumer's leader may be on a node that is down: keep asking.
	err = retryFor(ctx, 30*time.Second, func(ctx context.Context) (err error) {
		w.cons, err = js.Consumer(ctx, i.o.stream(), name)
		return err
	})
	if err != nil {
		nc.Close()
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, fmt.Errorf("worker %d: bind consumer %s: %w", id, name, err)
	}
	return w, nil
}

// pullRun is worker w of consumer c during the run: fetch, then ack, nak or
// skip each delivery, until ctx is done.
func (i *instance) pullRun(ctx context.Context, c, w int, name string) error {
	client := workerClient + c*i.o.Workers + w
	p, err := i.newPuller(ctx, client, c+w, name)
	if p == nil {
		return err
	}
	defer p.nc.Close()
	for ctx.Err() == nil {
		if _, err := p.fetch(i.o.Batch); err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

// fetch runs one Fetch and handles every message it returns, and records
// it with the number of messages it got.
func (p *puller) fetch(batch int) (int, error) {
	op := Op{Op: history.Op{Client: p.client, Node: p.nc.ConnectedServerName(), Type: OpFetch, Invoke: p.i.now()}, M: Msg{Consumer: p.name}}
	b, err := p.cons.Fetch(batch, jetstream.FetchMaxWait(p.i.o.FetchWait.D()))
	n := 0
	if err == nil {
		// Every message the batch gives is handled, even after the run
		// ends: a delivery is recorded whenever one was received.
		for m := range b.Messages() {
			n++
			p.handle(m, op.Invoke)
		}
		err = b.Error()
	}
	op.Complete, op.M.Got = p.i.now(), n
	recordErr(&op.Op, err, false)
	p.i.add(op)
	return n, err
}

// handle records a delivery and then acks, naks or skips it. The delivery's
// invoke is its Fetch's: the server sent it after that moment.
func (p *puller) handle(m jetstream.Msg, invoke int64) {
	d := Op{Op: history.Op{Client: p.client, Node: p.nc.ConnectedServerName(), Type: OpDeliver,
		Invoke: invoke, Complete: p.i.now(), Outcome: history.OK}, M: Msg{Consumer: p.name, Value: string(m.Data())}}
	md, err := m.Metadata()
	if err != nil {
		d.Outcome, d.Err, d.ErrMsg = history.Fail, history.ErrOther, client.ErrMsg(err)
		p.i.add(d)
		return
	}
	d.M.Seq, d.M.Delivered, d.M.ConsumerSeq = md.Sequence.Stream, md.NumDelivered, md.Sequence.Consumer
	p.i.add(d)
	if !p.drain {
		r := p.rng.Float64()
		switch {
		case r < p.i.o.NakRate:
			p.ack(m, d, OpNak)
			return
		case r < p.i.o.NakRate+p.i.o.SkipRate:
			return // left for the ack wait to redeliver
		}
	}
	if p.i.o.Ack == Sync {
		p.ack(m, d, OpAckSync)
	} else {
		p.ack(m, d, OpAck)
	}
}

// ack sends an ack, AckSync or nak for delivery d and records it with the
// delivery's stream sequence and count. A plain ack or nak that was sent is
// indeterminate: nothing says the server got it.
func (p *puller) ack(m jetstream.Msg, d Op, t history.OpType) {
	op := Op{Op: history.Op{Client: p.client, Node: p.nc.ConnectedServerName(), Type: t, Invoke: p.i.now()},
		M: Msg{Consumer: p.name, Value: d.M.Value, Seq: d.M.Seq, Delivered: d.M.Delivered}}
	var err error
	switch t {
	case OpAckSync:
		ctx, cancel := context.WithTimeout(context.Background(), ackTimeout)
		err = m.DoubleAck(ctx)
		cancel()
	case OpNak:
		err = m.Nak()
	default:
		err = m.Ack()
	}
	op.Complete = p.i.now()
	// A plain ack or nak that returned an error was never sent.
	recordErr(&op.Op, err, t == OpAckSync)
	if err == nil && t != OpAckSync {
		op.Outcome = history.Info
	}
	p.i.add(op)
}
