package msgid

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Read is what ReadBack saw of a stream.
type Read struct {
	Messages  uint64  // messages read
	Dups      uint64  // ids read more than once
	Malformed uint64  // messages without a valid id
	Complete  bool    // the read reached the stream's last sequence as it was when the read began
	LastSeq   uint64  // the last stream sequence read
	Detail    string  // how the read ended, in words
	Seconds   float64 // how long it took
}

// ReadBack reads every message's id with an ordered consumer that carries
// headers only (the payloads could be gigabytes for nothing), up to the
// stream's last sequence when it starts, within bound. Memory stays bounded
// by the id bitmap. A read that stops early says so: Complete is false and
// Detail names where and why, so a check can answer unknown, not "lost".
func ReadBack(ctx context.Context, js jetstream.JetStream, stream string, bound time.Duration) (got *Set, r Read) {
	got = &Set{}
	var dups, malformed uint64
	r = Scan(ctx, js, stream, bound, func(_ uint64, _ string, h nats.Header) {
		id, err := Parse(h.Get(Header))
		switch {
		case err != nil:
			malformed++
		case !got.Add(id):
			dups++
		}
	})
	r.Dups, r.Malformed = dups, malformed
	return got, r
}

// Scan hands visit the sequence, subject and headers of every message of stream, in
// order, as ReadBack reads them (an ordered consumer, headers only, up to
// the last sequence when it starts, within bound), for a workload whose
// messages carry more than an id. The Read it returns counts messages and
// says how the read ended; Dups and Malformed are the visitor's to count.
func Scan(ctx context.Context, js jetstream.JetStream, stream string, bound time.Duration, visit func(seq uint64, subject string, h nats.Header)) (r Read) {
	start := time.Now()
	defer func() { r.Seconds = time.Since(start).Seconds() }()
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		r.Detail = "stream info: " + err.Error()
		return r
	}
	info := s.CachedInfo()
	last := info.State.LastSeq
	if info.State.Msgs == 0 {
		r.Complete, r.Detail = true, "the stream is empty"
		return r
	}
	cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{HeadersOnly: true, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		r.Detail = "ordered consumer: " + err.Error()
		return r
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(4096))
	if err != nil {
		r.Detail = "consume: " + err.Error()
		return r
	}
	defer it.Stop()
	go func() { <-ctx.Done(); it.Stop() }()
	for {
		m, err := it.Next()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
				r.Detail = fmt.Sprintf("read %d messages up to sequence %d of %d within %s", r.Messages, r.LastSeq, last, bound)
			} else {
				r.Detail = fmt.Sprintf("read stopped after %d messages at sequence %d of %d: %v", r.Messages, r.LastSeq, last, err)
			}
			return r
		}
		r.Messages++
		if md, err := m.Metadata(); err == nil {
			r.LastSeq = md.Sequence.Stream
		}
		visit(r.LastSeq, m.Subject(), m.Headers())
		if r.LastSeq >= last {
			r.Complete = true
			r.Detail = fmt.Sprintf("read %d messages, sequences up to %d, in %.1fs", r.Messages, last, time.Since(start).Seconds())
			return r
		}
	}
}
