package catchup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// ReplicaState is one server's own copy of the stream after the heal.
type ReplicaState struct {
	Node     string `json:"node"`
	Has      bool   `json:"has_stream"`
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
	Msgs     uint64 `json:"msgs"`
	Bytes    uint64 `json:"bytes"`
	Err      string `json:"error,omitempty"`
}

// Agreement compares replicas: ok when every one answered, has the stream,
// and all have the same first and last sequence and message count.
func Agreement(reps []ReplicaState) (ok bool, detail string) {
	if len(reps) == 0 {
		return false, "no replica read"
	}
	var parts []string
	same := true
	for _, r := range reps {
		switch {
		case r.Err != "":
			return false, fmt.Sprintf("%s could not be read: %s", r.Node, r.Err)
		case !r.Has:
			return false, fmt.Sprintf("%s has no copy of the stream", r.Node)
		}
		parts = append(parts, fmt.Sprintf("%s first %d last %d msgs %d", r.Node, r.FirstSeq, r.LastSeq, r.Msgs))
		f := reps[0]
		if r.FirstSeq != f.FirstSeq || r.LastSeq != f.LastSeq || r.Msgs != f.Msgs {
			same = false
		}
	}
	if !same {
		return false, "replicas differ: " + strings.Join(parts, "; ")
	}
	r := reps[0]
	return true, fmt.Sprintf("all %d replicas have first %d last %d msgs %d", len(reps), r.FirstSeq, r.LastSeq, r.Msgs)
}

// replicas reads every node's copy until they agree or bound passes (with
// publishing stopped they converge within moments of the heal).
func (c *cell) replicas(ctx context.Context, bound time.Duration) []ReplicaState {
	var mon cluster.Monitor
	deadline := time.Now().Add(bound)
	for {
		var reps []ReplicaState
		for _, n := range c.c.Nodes() {
			r := ReplicaState{Node: n.Name}
			s, ok, err := mon.LocalStream(ctx, n, c.opts.Stream)
			if err != nil {
				r.Err = observe.OneLine(err.Error(), 160)
			}
			r.Has, r.FirstSeq, r.LastSeq, r.Msgs, r.Bytes = ok, s.State.FirstSeq, s.State.LastSeq, s.State.Msgs, s.State.Bytes
			reps = append(reps, r)
		}
		if ok, _ := Agreement(reps); ok || time.Now().After(deadline) || ctx.Err() != nil {
			return reps
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Integrity is the verdict on the stream's content after the heal.
type Integrity struct {
	Replicas       []ReplicaState `json:"replicas"`
	ReplicasAgree  bool           `json:"replicas_agree"`
	ReplicasDetail string         `json:"replicas_detail"`

	Acked     uint64 `json:"acked"`      // ids acknowledged to the publishers
	Read      uint64 `json:"read"`       // messages read back
	Distinct  uint64 `json:"distinct"`   // distinct ids read back
	Dups      uint64 `json:"duplicates"` // ids read more than once
	Malformed uint64 `json:"malformed"`  // messages without a valid id
	Missing   uint64 `json:"missing"`    // acked and not read back
	// Unacked are ids read back that were never acknowledged: publishes
	// that failed or timed out and were stored anyway (allowed).
	Unacked         uint64   `json:"unacked_present"`
	MissingExamples []string `json:"missing_examples,omitempty"`
	Complete        bool     `json:"complete"` // the read reached the stream's last sequence
	LastSeqRead     uint64   `json:"last_seq_read"`
	ReadDetail      string   `json:"read_detail"`
	ReadSeconds     float64  `json:"read_seconds"`
	BitmapBytes     int      `json:"bitmap_bytes"` // memory the two id sets took
}

// readBack reads every message's id with an ordered consumer that carries
// headers only (the payloads would be gigabytes for nothing), up to the
// stream's last sequence when it starts, within bound. Memory stays bounded
// by the id bitmap.
func readBack(ctx context.Context, js jetstream.JetStream, stream string, bound time.Duration) (got *IDSet, in Integrity) {
	got = &IDSet{}
	start := time.Now()
	defer func() { in.ReadSeconds = time.Since(start).Seconds() }()
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		in.ReadDetail = "stream info: " + err.Error()
		return got, in
	}
	info := s.CachedInfo()
	last := info.State.LastSeq
	if info.State.Msgs == 0 {
		in.Complete, in.ReadDetail = true, "the stream is empty"
		return got, in
	}
	cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{HeadersOnly: true, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		in.ReadDetail = "ordered consumer: " + err.Error()
		return got, in
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(4096))
	if err != nil {
		in.ReadDetail = "consume: " + err.Error()
		return got, in
	}
	defer it.Stop()
	go func() { <-ctx.Done(); it.Stop() }()
	for {
		m, err := it.Next()
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
				in.ReadDetail = fmt.Sprintf("read %d messages up to sequence %d of %d within %s", in.Read, in.LastSeqRead, last, bound)
			} else {
				in.ReadDetail = fmt.Sprintf("read stopped after %d messages at sequence %d of %d: %v", in.Read, in.LastSeqRead, last, err)
			}
			return got, in
		}
		in.Read++
		if md, err := m.Metadata(); err == nil {
			in.LastSeqRead = md.Sequence.Stream
		}
		id, err := ParseID(m.Headers().Get(IDHeader))
		switch {
		case err != nil:
			in.Malformed++
		case !got.Add(id):
			in.Dups++
		}
		if in.LastSeqRead >= last {
			in.Complete = true
			in.ReadDetail = fmt.Sprintf("read %d messages, sequences up to %d, in %.1fs", in.Read, last, time.Since(start).Seconds())
			return got, in
		}
	}
}
