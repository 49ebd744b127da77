package schedule

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client/streamread"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/ctxtime"
)

// The headers a firing carries (nats-server stream.go: JSScheduler,
// JSScheduleNext).
const (
	HeaderScheduler = "Nats-Scheduler"
	HeaderNext      = "Nats-Schedule-Next"
	NextPurge       = "purge" // a one-shot's: its schedule is removed
)

// firingOf makes a stored target message a Firing.
func firingOf(seq uint64, subject string, data []byte, h nats.Header, stored time.Time) Firing {
	return Firing{Seq: seq, Target: subject, Scheduler: h.Get(HeaderScheduler), Next: h.Get(HeaderNext), Body: string(data),
		Time: stored.UnixNano()}
}

// consume reads the targets as they fire with an ordered consumer,
// recording each as an OpSeen, until ctx is done. An ordered consumer
// recreates itself after a fault; when it gives up, a new one starts
// after the last sequence read.
func (i *instance) consume(ctx context.Context, nc *nats.Conn) {
	js, _ := jetstream.New(nc)
	var last atomic.Uint64 // written by the consumer's callback
	for ctx.Err() == nil {
		cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{i.o.TargetSubject(">")}, DeliverPolicy: jetstream.DeliverAllPolicy}
		if l := last.Load(); l > 0 {
			cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, l+1
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		cons, err := js.OrderedConsumer(cctx, i.o.Targets(), cfg)
		cancel()
		if err != nil {
			ctxtime.Sleep(ctx, 250*time.Millisecond)
			continue
		}
		cc, err := cons.Consume(func(m jetstream.Msg) {
			md, err := m.Metadata()
			if err != nil {
				return
			}
			if md.Sequence.Stream > last.Load() {
				last.Store(md.Sequence.Stream)
			}
			f := firingOf(md.Sequence.Stream, m.Subject(), m.Data(), m.Headers(), md.Timestamp)
			_, f.OriginSeq = streamread.SourceOf(m.Headers().Get(streamread.SourceHeader))
			i.saw(f, nc.ConnectedServerName())
		})
		if err != nil {
			ctxtime.Sleep(ctx, 250*time.Millisecond)
			continue
		}
		select {
		case <-ctx.Done():
		case <-cc.Closed():
		}
		cc.Stop()
	}
}

// saw records a firing the first time it is read, and stops waiting for
// the one-shot it fired.
func (i *instance) saw(f Firing, node string) {
	h := i.env.History
	now := h.Now()
	f.Seen = time.Now().UnixNano()
	i.mu.Lock()
	dup := i.seen[f.Seq]
	i.seen[f.Seq] = true
	if f.Next == NextPurge {
		delete(i.waiting, f.Scheduler)
	}
	i.mu.Unlock()
	if dup {
		return
	}
	if next, ok := f.NextTime(); ok {
		i.script.Due(time.Unix(0, next), "repeating "+f.Scheduler)
	}
	op := history.Op{Type: OpSeen, Client: i.consumerClient(), Node: node, Key: f.Scheduler, Outcome: history.OK, Invoke: now, Complete: now}
	op.Data, _ = json.Marshal(f)
	h.Add(op)
}

// consumerClient is the live consumer's client id: after the schedulers
// and the repeating schedules' creator ids.
func (i *instance) consumerClient() int {
	return i.o.Clients*len(i.nodes) + i.o.Repeating
}
