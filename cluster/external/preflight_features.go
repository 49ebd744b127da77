package external

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// features names, for the create step, what the stream allows beyond a
// plain one.
func (s Stream) features() string {
	var fs []string
	if s.AtomicPublish {
		fs = append(fs, "atomic publish")
	}
	if s.Counters {
		fs = append(fs, "counters")
	}
	if len(fs) == 0 {
		return ""
	}
	return ", " + strings.Join(fs, ", ")
}

// keptFeatures refuses a created stream that lacks what was asked for: a
// server older than the feature decodes the stream config without the
// field it does not know, creates the stream and says nothing, so only
// the config it answers shows the difference.
func keptFeatures(s Stream, got jetstream.StreamConfig) error {
	switch {
	case s.AtomicPublish && !got.AllowAtomicPublish:
		return refuse("the server created the stream without allow_atomic: it predates atomic batch publish (ADR-50, nats-server 2.12.0)")
	case s.Counters && !got.AllowMsgCounter:
		return refuse("the server created the stream without allow_msg_counter: it predates distributed counters (ADR-49, nats-server 2.12.0)")
	}
	return nil
}

// probeMsg is the preflight's publish: on a counter stream an add of 0,
// as a counter stream refuses a message without Nats-Incr.
func probeMsg(s Stream) *nats.Msg {
	m := nats.NewMsg(s.Subject)
	m.Data = []byte("chaos preflight")
	if s.Counters {
		m.Data = nil
		m.Header.Set("Nats-Incr", "0")
	}
	return m
}

// publishBatch commits an atomic batch of one message (ADR-50 headers:
// Nats-Batch-Id, Nats-Batch-Sequence, Nats-Batch-Commit) and wants its
// ack to name the batch.
func publishBatch(ctx context.Context, js jetstream.JetStream, subject string) error {
	m := nats.NewMsg(subject)
	m.Data = []byte("chaos preflight batch")
	m.Header.Set("Nats-Batch-Id", "chaos-preflight")
	m.Header.Set("Nats-Batch-Sequence", "1")
	m.Header.Set("Nats-Batch-Commit", "1")
	resp, err := js.Conn().RequestMsgWithContext(ctx, m)
	if err != nil {
		return err
	}
	ack, err := decodeBatchAck(resp.Data)
	if err != nil {
		return err
	}
	if ack.Error != nil {
		return fmt.Errorf("the commit was refused: %s (%d)", ack.Error.Description, ack.Error.ErrCode)
	}
	if ack.Batch != "chaos-preflight" || ack.Count != 1 {
		return refuse("the commit of an atomic batch was answered as a plain publish (batch %q, count %d): the server does not keep atomic batches", ack.Batch, ack.Count)
	}
	return nil
}

// batchAck is a commit's answer: a publish ack that names the batch and
// its count (ADR-50), or a JetStream error.
type batchAck struct {
	Batch string `json:"batch"`
	Count int    `json:"count"`
	Error *struct {
		ErrCode     int    `json:"err_code"`
		Description string `json:"description"`
	} `json:"error"`
}

func decodeBatchAck(b []byte) (batchAck, error) {
	var a batchAck
	if err := json.Unmarshal(b, &a); err != nil {
		return a, fmt.Errorf("the commit's answer %q: %v", b, err)
	}
	return a, nil
}
