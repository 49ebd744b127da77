package sources

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client/streamread"
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

// readStream reads every message of a stream from its leader
// (streamread.Read), in the stored shape.
func readStream(ctx context.Context, js jetstream.JetStream, name string, role Role, workQueue bool) StreamRead {
	res := streamread.Read(ctx, js, name, workQueue)
	r := StreamRead{Name: name, Role: role, FirstSeq: res.FirstSeq, LastSeq: res.LastSeq, Msgs: res.Msgs,
		Complete: res.Complete, Error: res.Error}
	for _, m := range res.Messages {
		r.Messages = append(r.Messages, messageOf(m.Seq, m.Subject, m.Data, m.Header, m.Time))
	}
	return r
}

func messageOf(seq uint64, subject string, data []byte, h nats.Header, t time.Time) Message {
	m := Message{Seq: seq, Subject: subject, Value: string(data), ID: h.Get(jetstream.MsgIDHeader), Time: t.UnixNano()}
	m.Source, m.SourceSeq = streamread.SourceOf(h.Get(streamread.SourceHeader))
	return m
}
