package queue

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// orderedSub is one ordered push consumer: nats.go's legacy
// Subscribe(..., nats.OrderedConsumer()), an ephemeral AckNone push
// consumer with flow control and idle heartbeats that the client recreates
// from the next stream sequence when it sees a gap (nats.go js.go
// resetOrderedConsumer). It records every message it hands over.
type orderedSub struct {
	i    *instance
	c    int
	name string
	nc   *nats.Conn
	sub  *nats.Subscription

	mu     sync.Mutex
	closed bool
}

// orderedRun keeps ordered subscription c open until ctx is done.
func (i *instance) orderedRun(ctx context.Context, c int, name string) error {
	s, err := i.subscribeOrdered(ctx, c, name)
	if s == nil {
		return err
	}
	<-ctx.Done()
	s.stop()
	return nil
}

// subscribeOrdered starts subscription c right after the last stream
// sequence it delivered, so a drain continues where the run stopped.
func (i *instance) subscribeOrdered(ctx context.Context, c int, name string) (*orderedSub, error) {
	nc, err := i.connect(ctx, c, "queue-"+name)
	if err != nil {
		return nil, fmt.Errorf("ordered consumer %s: connect: %w", name, err)
	}
	ljs, err := nc.JetStream(nats.MaxWait(2 * time.Second))
	if err != nil {
		nc.Close()
		return nil, err
	}
	s := &orderedSub{i: i, c: c, name: name, nc: nc}
	start := i.lastSeq[c].Load() + 1
	err = retryFor(ctx, 30*time.Second, func(context.Context) (err error) {
		s.sub, err = ljs.Subscribe(i.o.subjectPrefix()+">", s.handle, nats.OrderedConsumer(),
			nats.BindStream(i.o.stream()), nats.StartSequence(start))
		return err
	})
	if err != nil {
		nc.Close()
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, fmt.Errorf("ordered consumer %s: subscribe: %w", name, err)
	}
	return s, nil
}

// handle records one message as a zero-length delivery at the moment it is
// handed over (a push delivery has no request to date it from). Messages
// of one subscription are handled one at a time, so history.jsonl keeps
// them in the order received.
func (s *orderedSub) handle(m *nats.Msg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	now := s.i.now()
	op := Op{Op: history.Op{Client: orderedClient + s.c, Node: s.nc.ConnectedServerName(), Type: OpDeliver,
		Invoke: now, Complete: now, Outcome: history.OK}, M: Msg{Consumer: s.name, Value: string(m.Data)}}
	md, err := m.Metadata()
	if err != nil {
		op.Outcome, op.Err, op.ErrMsg = history.Fail, history.ErrOther, client.ErrMsg(err)
	} else {
		op.M.Seq, op.M.Delivered, op.M.ConsumerSeq = md.Sequence.Stream, md.NumDelivered, md.Sequence.Consumer
		if md.Sequence.Stream > s.i.lastSeq[s.c].Load() {
			s.i.lastSeq[s.c].Store(md.Sequence.Stream)
		}
	}
	s.i.add(op)
}

// stop ends the subscription; nothing is recorded after it returns.
func (s *orderedSub) stop() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	_ = s.sub.Unsubscribe()
	s.nc.Close()
}
