package batch

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The workload's own headers, on every message of a batch.
const (
	BatchHeader = "Chaos-Batch" // the batch's id: "p.n", producer p's n-th batch
	IndexHeader = "Chaos-Index" // the message's place in its batch, from 1
)

// impossibleLastSeq is the expected last sequence of a wrong-last-seq
// batch: no stream of a run reaches it, so the server refuses the batch
// (10071) whatever was stored before.
const impossibleLastSeq = 1 << 62

// producer publishes batches one at a time on its own connection, through
// orbit.go's batch publisher (jetstreamext), as users do.
type producer struct {
	idx      int
	js       jetstream.JetStream
	subjects []string
	size     int
	n        uint64
	msgID    string // the Nats-Msg-Id of its last acknowledged batch's first message
}

// publish tries one batch of kind and says how it ended, with the error
// that ended it. Each message's value names its batch and place, so every
// message is unique; the first message of a batch carries a Nats-Msg-Id
// (its batch id), which a duplicate-id batch then repeats. A kind that
// needs what the producer does not have yet (a duplicate of an id before
// any batch was acknowledged) is tried as a plain commit.
func (p *producer) publish(ctx context.Context, kind Kind) (Batch, error) {
	p.n++
	id := strconv.Itoa(p.idx) + "." + strconv.FormatUint(p.n, 10)
	if kind == KindDuplicateID && p.msgID == "" {
		kind = KindCommit
	}
	b := Batch{ID: id, Kind: kind, Size: p.size, Outcome: history.Fail, Op: -1}
	if kind == KindPlain {
		b.Size = 1
		return p.plain(ctx, b)
	}
	bp, err := jetstreamext.NewBatchPublisher(p.js)
	if err != nil {
		return b, err
	}
	for i := 1; i < p.size; i++ {
		if err := bp.AddMsg(p.msg(id, i, kind), p.opts(i, kind)...); err != nil {
			return b, fmt.Errorf("add message %d: %w", i, err) // never committed: the server drops what it staged
		}
	}
	if kind == KindAbandoned {
		return b, nil // the server drops it after its batch timeout (10 s)
	}
	ack, err := bp.CommitMsg(ctx, p.msg(id, p.size, kind), p.opts(p.size, kind)...)
	if err != nil {
		b.Outcome = client.Classify(err).Outcome(true)
		return b, err
	}
	b.Outcome, b.AckSeq = history.OK, ack.Sequence
	if kind == KindCommit {
		p.msgID = id
	}
	return b, nil
}

// msg is message i of batch id.
func (p *producer) msg(id string, i int, kind Kind) *nats.Msg {
	m := nats.NewMsg(p.subjects[(int(p.n)+i)%len(p.subjects)])
	m.Data = []byte(id + "." + strconv.Itoa(i))
	m.Header.Set(BatchHeader, id)
	m.Header.Set(IndexHeader, strconv.Itoa(i))
	switch {
	case i == 1 && kind == KindDuplicateID:
		m.Header.Set(jetstream.MsgIDHeader, p.msgID)
	case i == 1:
		m.Header.Set(jetstream.MsgIDHeader, id)
	}
	return m
}

// opts puts a wrong-last-seq batch's expectation on its first message,
// the only one the server allows it on (jetstream_batching.go).
func (p *producer) opts(i int, kind Kind) []jetstreamext.BatchMsgOpt {
	if i == 1 && kind == KindWrongLastSeq {
		return []jetstreamext.BatchMsgOpt{jetstreamext.WithBatchExpectLastSequence(impossibleLastSeq)}
	}
	return nil
}

// plainRetries and plainTimeout: a plain message is published again under
// its Nats-Msg-Id while it may have been stored, each attempt bounded.
const (
	plainRetries = 2
	plainTimeout = 1500 * time.Millisecond
)

// plain publishes b, one message on its own with its id as Nats-Msg-Id,
// retried under that id after a timeout or a lost connection: the stream
// must hold it once when acknowledged, never when refused for sure, and at
// most once otherwise. An ack that names a duplicate names the sequence of
// the copy stored before.
func (p *producer) plain(ctx context.Context, b Batch) (Batch, error) {
	m := p.msg(b.ID, 1, KindPlain)
	var err error
	mayHave := false
	for try := 0; try <= plainRetries && ctx.Err() == nil; try++ {
		actx, cancel := context.WithTimeout(ctx, plainTimeout)
		ack, perr := p.js.PublishMsg(actx, m)
		cancel()
		if err = perr; err == nil {
			b.Outcome, b.AckSeq = history.OK, ack.Sequence
			return b, nil
		}
		c := client.Classify(err)
		mayHave = mayHave || c.MayHaveApplied()
		if c.Cause == client.Refused && !c.MayHaveApplied() {
			break // a definite refusal: asking again under the same id changes nothing
		}
		if c.Cause == client.NoResponders {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if mayHave {
		b.Outcome = history.Info
	}
	return b, err
}
