package sources

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/time/rate"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
)

// RepeatEvery is how often a producer of a cell that repeats ids reuses
// one: every RepeatEvery-th publish, when an id old enough is there.
const RepeatEvery = 10

// stored is an acknowledged id and when its ack came.
type stored struct {
	id string
	at time.Time
}

// produce is producer k: it publishes unique values to its origin's
// subject, each attempt an op, retrying under the same Nats-Msg-Id while
// a publish may not have been stored, until ctx is done.
func (i *instance) produce(ctx context.Context, k int, lim *rate.Limiter) error {
	nc, err := i.conns.Connect(k, fmt.Sprintf("sources-producer-%d", k))
	if err != nil {
		return err
	}
	js, _ := jetstream.New(nc)
	id := queue.ProducerID(k)
	origin := i.o.Origin(i.o.OriginOf(k))
	var old []stored // acknowledged ids, oldest first, for repeats
	for n := 1; ; n++ {
		if err := lim.Wait(ctx); err != nil {
			return nil
		}
		p := Publish{Origin: origin, Producer: id, Value: queue.Value(id, n)}
		p.ID = p.Value
		if i.o.RepeatIDs && n%RepeatEvery == 0 && len(old) > 0 && time.Since(old[0].at) > 3*i.o.Window().D() {
			p.ID, p.Repeat, old = old[0].id, true, old[1:]
		}
		if i.publish(ctx, js, nc, p, k) && !p.Repeat {
			old = append(old, stored{p.ID, time.Now()})
		}
	}
}

// publish tries p up to PublishRetries+1 times and says whether an
// attempt was acknowledged. It stops after an acknowledgement or a
// definite refusal; a duplicate's ack counts, since the origin holds the
// id (an earlier attempt, or for a repeat the namesake: the check tells
// them apart by the sequence the ack names).
func (i *instance) publish(ctx context.Context, js jetstream.JetStream, nc *nats.Conn, p Publish, k int) bool {
	h := i.env.History
	for p.Attempt = 1; p.Attempt <= i.o.PublishRetries+1; p.Attempt++ {
		m := nats.NewMsg(i.o.ProducerSubject(k))
		m.Data = []byte(p.Value)
		m.Header.Set(jetstream.MsgIDHeader, p.ID)
		op := PublishOp(p, producerClient+k, nc.ConnectedServerName())
		op.Invoke = h.Now()
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), i.o.PublishTimeout.D())
		ack, err := js.PublishMsg(actx, m)
		cancel()
		op.Complete = max(op.Invoke, h.Now())
		if err == nil {
			q := p
			q.Seq, q.Duplicate = ack.Sequence, ack.Duplicate
			op = withData(op, q)
			op.Outcome = history.OK
			h.Add(op)
			return true
		}
		c := client.Classify(err)
		op.Err, op.ErrCode, op.ErrMsg, op.Outcome = c.Kind, c.Code, c.Msg, c.Outcome(true)
		h.Add(op)
		if (c.Cause == client.Refused && !c.MayHaveApplied() && !c.Transient()) || ctx.Err() != nil {
			return false // a definite refusal: asking again under the same id changes nothing
		}
		time.Sleep(backoff(p.Attempt))
	}
	return false
}

// backoff spaces the retries of one publish.
func backoff(attempt int) time.Duration {
	return min(time.Duration(attempt)*50*time.Millisecond, 500*time.Millisecond)
}
