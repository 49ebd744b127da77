package kvupdate

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// observer reads the bucket's stream with an ordered consumer. The bucket
// keeps every revision (see keepAll), so reading after the run sees them all.
type observer struct {
	prefix string // "$KV.<bucket>."
	cc     jetstream.ConsumeContext

	mu      sync.Mutex
	entries map[uint64]history.Entry
	last    uint64
}

func startObserver(ctx context.Context, js jetstream.JetStream, bucket string) (*observer, error) {
	o := &observer{prefix: "$KV." + bucket + ".", entries: map[uint64]history.Entry{}}
	cons, err := js.OrderedConsumer(ctx, "KV_"+bucket, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, err
	}
	o.cc, err = cons.Consume(o.handle)
	if err != nil {
		return nil, err
	}
	return o, nil
}

func (o *observer) handle(m jetstream.Msg) {
	md, err := m.Metadata()
	if err != nil {
		return
	}
	e := history.Entry{
		Seq:   md.Sequence.Stream,
		Key:   strings.TrimPrefix(m.Subject(), o.prefix),
		Value: string(m.Data()),
	}
	switch m.Headers().Get("KV-Operation") {
	case "DEL":
		e.Operation = "del"
	case "PURGE":
		e.Operation = "purge"
	}
	o.mu.Lock()
	o.entries[e.Seq] = e
	if e.Seq > o.last {
		o.last = e.Seq
	}
	o.mu.Unlock()
}

// drain waits (bounded) until the observer has seen lastSeq, stops it and
// returns every entry in order. complete is true when it reached lastSeq.
func (o *observer) drain(ctx context.Context, lastSeq uint64, bound time.Duration) ([]history.Entry, bool) {
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		o.mu.Lock()
		done := o.last >= lastSeq
		o.mu.Unlock()
		if done {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	o.cc.Stop()
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]history.Entry, 0, len(o.entries))
	for seq := uint64(1); seq <= lastSeq; seq++ {
		if e, ok := o.entries[seq]; ok {
			out = append(out, e)
		}
	}
	return out, o.last >= lastSeq
}
