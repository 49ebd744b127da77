package sources

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

// StreamsFile holds every stream as read back after the copies settled.
const StreamsFile = "streams.json"

// Role is what a stream is in a cell.
type Role string

// The streams' roles.
const (
	RoleOrigin  Role = "origin"
	RoleMirror  Role = "mirror"
	RoleSourced Role = "sourced"
)

// StreamRead is one stream as read back from its leader.
type StreamRead struct {
	Name string `json:"name"`
	Role Role   `json:"role"`
	// State is the stream's state just before it was read; Complete says
	// every message it counted was read.
	FirstSeq uint64    `json:"first_seq"`
	LastSeq  uint64    `json:"last_seq"`
	Msgs     uint64    `json:"msgs"`
	Complete bool      `json:"complete"`
	Error    string    `json:"error,omitempty"`
	Messages []Message `json:"messages"`
}

// Message is one stored message.
type Message struct {
	Seq     uint64 `json:"seq"`
	Subject string `json:"subject"`
	Value   string `json:"value"`
	ID      string `json:"id,omitempty"` // Nats-Msg-Id
	// Source and SourceSeq are the Nats-Stream-Source header's origin and
	// origin sequence (a sourced stream's messages only).
	Source    string `json:"source,omitempty"`
	SourceSeq uint64 `json:"source_seq,omitempty"`
	Time      int64  `json:"time"` // stored, Unix ns (the containers share the host's clock)
}

// orderedStall is how long the ordered read-back waits for its next
// message before the leader gets take over.
const orderedStall = 5 * time.Second

// readBackBound bounds reading one stream one way.
const readBackBound = 60 * time.Second

// readStream reads every message of a stream: with an ordered consumer,
// or, when that falls short and for a work-queue stream (whose consumers
// must acknowledge, and would take what they read), with leader gets of
// the next message after each.
func readStream(ctx context.Context, js jetstream.JetStream, name string, role Role, workQueue bool) StreamRead {
	r := StreamRead{Name: name, Role: role}
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
			r.Messages, err = readOrdered(ctx, js, name, r.LastSeq)
		}
		// An ordered consumer reads the copy of the one server it is
		// placed on, which may be a replica still behind after the heal;
		// leader gets then read the rest.
		if workQueue || err != nil {
			r.Messages, err = readByGet(ctx, js, name, r.FirstSeq)
		}
	}
	if err != nil {
		r.Error = err.Error()
	}
	r.Complete = err == nil && uint64(len(r.Messages)) >= r.Msgs
	return r
}

// readOrdered reads a stream up to last with an ordered consumer.
func readOrdered(ctx context.Context, js jetstream.JetStream, name string, last uint64) ([]Message, error) {
	cons, err := js.OrderedConsumer(ctx, name, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, fmt.Errorf("read back: %w", err)
	}
	var mu sync.Mutex
	var out []Message
	var seen uint64
	cc, err := cons.Consume(func(m jetstream.Msg) {
		md, err := m.Metadata()
		if err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if md.Sequence.Stream > seen {
			out = append(out, messageOf(md.Sequence.Stream, m.Subject(), m.Data(), m.Headers(), md.Timestamp))
			seen = md.Sequence.Stream
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read back: %w", err)
	}
	defer cc.Stop()
	// A consumer on a replica that is behind stops short: give up once
	// nothing new came for orderedStall.
	moved, at := time.Now(), uint64(0)
	for deadline := time.Now().Add(readBackBound); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		now := seen
		mu.Unlock()
		if now >= last || time.Since(moved) > orderedStall {
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

// readByGet walks a stream with leader gets of the next message at or
// after a sequence, skipping what was removed.
func readByGet(ctx context.Context, js jetstream.JetStream, name string, first uint64) ([]Message, error) {
	s, err := js.Stream(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("read back: %w", err)
	}
	var out []Message
	deadline := time.Now().Add(readBackBound)
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
		out = append(out, messageOf(m.Sequence, m.Subject, m.Data, m.Header, m.Time))
		seq = m.Sequence + 1
	}
	return out, fmt.Errorf("read back: not done within %s", readBackBound)
}

func messageOf(seq uint64, subject string, data []byte, h nats.Header, t time.Time) Message {
	m := Message{Seq: seq, Subject: subject, Value: string(data), ID: h.Get(jetstream.MsgIDHeader), Time: t.UnixNano()}
	m.Source, m.SourceSeq = parseSource(h.Get(sourceHeader))
	return m
}

// sourceHeader is the header a sourced stream adds to every message it
// copies (nats-server stream.go genSourceHeader): "<origin> <origin seq>
// <filter> <transform destination> [<subject> [<ident>]]", the origin's
// name possibly followed by ":<hash>".
const sourceHeader = "Nats-Stream-Source"

func parseSource(h string) (string, uint64) {
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
