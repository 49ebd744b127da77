// Package streamread reads every message a stream holds from its leader
// after a run: with an ordered consumer, or with leader gets of the next
// message where that falls short or cannot be used (a work-queue stream,
// whose consumers must acknowledge and would take what they read). A
// workload's read-back is this plus what it makes of each message.
package streamread

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
)

// Msg is one stored message.
type Msg struct {
	Seq     uint64
	Subject string
	Data    []byte
	Header  nats.Header
	Time    time.Time // stored (the containers share the host's clock)
}

// Result is one stream as read back: its state just before it was read,
// and its messages. Complete says every message the state counted was
// read; Error says why not.
type Result struct {
	FirstSeq, LastSeq, Msgs uint64
	Messages                []Msg
	Complete                bool
	Error                   string
}

// OrderedStall is how long the ordered read waits for its next message
// before the leader gets take over.
const OrderedStall = 5 * time.Second

// Bound bounds reading one stream one way.
const Bound = 60 * time.Second

// Read reads every message of stream name (see the package doc).
func Read(ctx context.Context, js jetstream.JetStream, name string, workQueue bool) Result {
	var r Result
	var info *jetstream.StreamInfo
	err := client.RetryTransient(ctx, 15*time.Second, func(ctx context.Context) (err error) {
		info, err = client.StreamInfo(ctx, js, name, 5*time.Second)
		return err
	})
	if err != nil {
		r.Error = "stream info: " + err.Error()
		return r
	}
	r.FirstSeq, r.LastSeq, r.Msgs = info.State.FirstSeq, info.State.LastSeq, info.State.Msgs
	if r.Msgs > 0 {
		if !workQueue {
			r.Messages, err = Ordered(ctx, js, name, r.LastSeq)
		}
		// An ordered consumer reads the copy of the one server it is
		// placed on, which may be a replica still behind after the heal;
		// leader gets then read the rest.
		if workQueue || err != nil {
			r.Messages, err = ByGet(ctx, js, name, r.FirstSeq)
		}
	}
	if err != nil {
		r.Error = err.Error()
	}
	r.Complete = err == nil && uint64(len(r.Messages)) >= r.Msgs
	return r
}

// Ordered reads a stream up to sequence last with an ordered consumer.
func Ordered(ctx context.Context, js jetstream.JetStream, name string, last uint64) ([]Msg, error) {
	cons, err := js.OrderedConsumer(ctx, name, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, fmt.Errorf("read back: %w", err)
	}
	var mu sync.Mutex
	var out []Msg
	var seen uint64
	cc, err := cons.Consume(func(m jetstream.Msg) {
		md, err := m.Metadata()
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if md.Sequence.Stream > seen {
			out = append(out, Msg{Seq: md.Sequence.Stream, Subject: m.Subject(), Data: m.Data(), Header: m.Headers(), Time: md.Timestamp})
			seen = md.Sequence.Stream
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read back: %w", err)
	}
	defer cc.Stop()
	// A consumer on a replica that is behind stops short: give up once
	// nothing new came for OrderedStall.
	moved, at := time.Now(), uint64(0)
	for deadline := time.Now().Add(Bound); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		now := seen
		mu.Unlock()
		if now >= last || time.Since(moved) > OrderedStall {
			break
		}
		if now > at {
			moved, at = time.Now(), now
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if seen < last {
		return out, fmt.Errorf("read back: an ordered consumer reached sequence %d of %d", seen, last)
	}
	return out, nil
}

// ByGet walks a stream from sequence first with gets of the next message
// at or after a sequence, skipping what was removed. nats.go answers a
// get through Direct Get when the stream allows it (any replica answers):
// only on a stream without allow_direct, as every caller's is, is this
// the leader's copy.
func ByGet(ctx context.Context, js jetstream.JetStream, name string, first uint64) ([]Msg, error) {
	s, err := js.Stream(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("read back: %w", err)
	}
	var out []Msg
	deadline := time.Now().Add(Bound)
	for seq := max(first, 1); time.Now().Before(deadline); {
		var m *jetstream.RawStreamMsg
		err := client.RetryTransient(ctx, 10*time.Second, func(ctx context.Context) (err error) {
			m, err = s.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(">"))
			return err
		})
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
			return out, nil
		case err != nil:
			return out, fmt.Errorf("read back at %d: %w", seq, err)
		}
		out = append(out, Msg{Seq: m.Sequence, Subject: m.Subject, Data: m.Data, Header: m.Header, Time: m.Time})
		seq = m.Sequence + 1
	}
	return out, fmt.Errorf("read back: not done within %s", Bound)
}

// SourceHeader is the header a sourcing stream adds to every message it
// copies (nats-server stream.go genSourceHeader): "<origin> <origin seq>
// <filter> <transform destination> [<subject> [<ident>]]", the origin's
// name possibly followed by ":<hash>".
const SourceHeader = "Nats-Stream-Source"

// SourceOf is a copied message's origin stream and sequence there, from
// its SourceHeader; "" and 0 when it has none.
func SourceOf(h string) (string, uint64) {
	f := strings.Fields(h)
	if len(f) < 2 {
		return "", 0
	}
	name, _, _ := strings.Cut(f[0], ":")
	seq, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return name, 0
	}
	return name, seq
}
