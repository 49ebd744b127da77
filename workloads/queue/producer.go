package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/time/rate"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// newLimiter paces all producers together; nil means as fast as they go.
func newLimiter(o Options) *rate.Limiter {
	if o.Rate <= 0 {
		return nil
	}
	return rate.NewLimiter(rate.Limit(o.Rate), o.Producers)
}

// produce publishes producer p's values 1, 2, ... one at a time, each with
// its value as Nats-Msg-Id, until ctx is done. A publish that fails or times
// out is retried with the same id (so the stream's deduplication decides),
// up to PublishRetries times; the producer then moves on and the value stays
// indeterminate or failed.
func (i *instance) produce(ctx context.Context, p int, lim *rate.Limiter) error {
	id := ProducerID(p)
	nc, err := i.connect(ctx, p, "queue-"+id)
	if err != nil {
		return fmt.Errorf("producer %s: connect: %w", id, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	subject := i.o.subjectPrefix() + id
	for n := 1; ctx.Err() == nil; n++ {
		if lim != nil && lim.Wait(ctx) != nil {
			return nil
		}
		v := Value(id, n)
		for attempt := 1; ; attempt++ {
			op := Op{Op: history.Op{Client: producerClient + p, Node: nc.ConnectedServerName(), Type: OpPublish, Invoke: i.now()},
				M: Msg{Producer: id, Value: v, Attempt: attempt}}
			// Not derived from ctx: a publish in flight when the run ends
			// completes and is recorded as it really ended.
			pctx, cancel := context.WithTimeout(context.Background(), i.o.PublishTimeout.D())
			ack, err := js.Publish(pctx, subject, []byte(v), jetstream.WithMsgID(v))
			cancel()
			op.Complete = i.now()
			recordErr(&op.Op, err, true)
			if err == nil {
				op.M.Seq = ack.Sequence
				if ack.Duplicate {
					op.Err = ErrDuplicate
				}
			}
			i.add(op)
			if err == nil || attempt > i.o.PublishRetries || ctx.Err() != nil {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(backoff(attempt)):
			}
		}
	}
	return nil
}

// backoff is the pause before retry attempt+1: 100ms, 200ms, ... up to 1s.
func backoff(attempt int) time.Duration {
	return min(time.Duration(attempt)*100*time.Millisecond, time.Second)
}
