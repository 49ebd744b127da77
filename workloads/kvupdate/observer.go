package kvupdate

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// observer reads the bucket's stream with an ordered consumer. During the
// run it sees revisions that a bucket keeping one per key deletes soon
// after; after the run, on the same bucket, it reads back what is left.
// A revision deleted before the observer reached it is never delivered:
// a gap in what it saw is unknown, never a valid absence.
type observer struct {
	via    string // the node its connection was made through, and the kind
	prefix string // "$KV.<bucket>."
	stopFn func()
	sink   *entrySink // shared by the observers of a run: one copy of each entry

	mu       sync.Mutex
	received int    // messages delivered, repeats included
	last     uint64 // the highest sequence delivered
}

// entrySink holds what observers saw, by sequence: the first message
// delivered at each, and any other message delivered at the same sequence
// later (by a replica that diverged, or after the stream reused it).
type entrySink struct {
	mu        sync.Mutex
	entries   map[uint64]history.Entry
	conflicts []history.Entry
}

func newSink() *entrySink { return &entrySink{entries: map[uint64]history.Entry{}} }

// sorted is every entry up to lastSeq, in sequence order.
func (s *entrySink) sorted(lastSeq uint64) []history.Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]history.Entry, 0, len(s.entries))
	for _, e := range s.entries {
		if e.Seq <= lastSeq {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Seq < out[b].Seq })
	return out
}

// observerHeartbeat is how soon an ordered consumer whose server died is
// noticed and recreated (nats.go resets it after two missed heartbeats).
const observerHeartbeat = time.Second

func startObserver(ctx context.Context, js jetstream.JetStream, bucket, via string, sink *entrySink) (*observer, error) {
	o := &observer{via: via, prefix: "$KV." + bucket + ".", sink: sink}
	cons, err := js.OrderedConsumer(ctx, "KV_"+bucket, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, err
	}
	cc, err := cons.Consume(o.handle, jetstream.PullHeartbeat(observerHeartbeat))
	if err != nil {
		return nil, err
	}
	o.stopFn = cc.Stop
	return o, nil
}

// republishSubject is where the bucket republishes every message it
// stores (see configure): "chaos.observed.<bucket>.<key>".
func republishSubject(bucket string) string { return "chaos.observed." + bucket }

// startRepublishObserver subscribes to the bucket's republished messages.
// The stream leader republishes each message as it stores it, with its
// sequence (nats-server stream.go, processJetStreamMsg), so a message a
// later revision deletes at once is still seen; core NATS delivery is at
// most once, so what it misses (a reconnect, a slow consumer) is a gap.
func startRepublishObserver(nc *nats.Conn, bucket, via string, sink *entrySink) (*observer, error) {
	o := &observer{via: via, prefix: "$KV." + bucket + ".", sink: sink}
	sub, err := nc.Subscribe(republishSubject(bucket)+".>", func(m *nats.Msg) {
		seq, err := strconv.ParseUint(m.Header.Get(jetstream.SequenceHeader), 10, 64)
		if err != nil {
			return
		}
		o.add(entryOf(m.Header.Get(jetstream.SubjectHeader), m.Header, m.Data, seq, o.prefix))
	})
	if err != nil {
		return nil, err
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		return nil, err
	}
	if err := nc.Flush(); err != nil {
		return nil, err
	}
	o.stopFn = func() { _ = sub.Unsubscribe() }
	return o, nil
}

func (o *observer) handle(m jetstream.Msg) {
	md, err := m.Metadata()
	if err != nil {
		return
	}
	o.add(entryOf(m.Subject(), m.Headers(), m.Data(), md.Sequence.Stream, o.prefix))
}

func (o *observer) add(e history.Entry) {
	o.sink.mu.Lock()
	if prev, ok := o.sink.entries[e.Seq]; !ok {
		o.sink.entries[e.Seq] = e
	} else if prev != e {
		o.sink.conflicts = append(o.sink.conflicts, e)
	}
	o.sink.mu.Unlock()
	o.mu.Lock()
	o.received++
	o.last = max(o.last, e.Seq)
	o.mu.Unlock()
}

// entryOf is one stream message as the checkers see it: a marker's Value
// is the id of the op that wrote it, a value's is the written id.
func entryOf(subject string, h map[string][]string, data []byte, seq uint64, prefix string) history.Entry {
	e := history.Entry{Seq: seq, Key: strings.TrimPrefix(subject, prefix)}
	get := func(k string) string {
		if v := h[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	switch get(kvOpHeader) {
	case kvOpDel:
		e.Operation, e.Value = "del", get(markerIDHeader)
	case kvOpPurge:
		e.Operation, e.Value = "purge", get(markerIDHeader)
	default:
		e.Value = decodeValue(data)
	}
	return e
}

// wait blocks (bounded) until the observer has seen lastSeq.
func (o *observer) wait(ctx context.Context, lastSeq uint64, deadline time.Time) {
	for time.Now().Before(deadline) && ctx.Err() == nil {
		o.mu.Lock()
		done := o.last >= lastSeq
		o.mu.Unlock()
		if done {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends the observer and says how many messages it received and
// whether it reached lastSeq.
func (o *observer) stop(lastSeq uint64) (int, bool) {
	o.stopFn()
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.received, o.last >= lastSeq
}

// drain waits (bounded) until the observer has seen lastSeq, stops it and
// returns every entry of its sink in order. complete is true when it
// reached lastSeq.
func (o *observer) drain(ctx context.Context, lastSeq uint64, bound time.Duration) ([]history.Entry, bool) {
	o.wait(ctx, lastSeq, time.Now().Add(bound))
	_, reached := o.stop(lastSeq)
	return o.sink.sorted(lastSeq), reached
}
