package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// readBackBound bounds the read-back of the stream after the drain.
const readBackBound = 30 * time.Second

// removalWait is how long the read-back waits for a work-queue or
// interest stream to remove what every consumer acknowledged: the stream
// removes acked messages once the consumer's ack is applied on it, an
// asynchronous step (consumer.go processReplicatedAck -> stream.ackMsg).
const removalWait = 5 * time.Second

// readBack records the stream's state (a stream-info op: Rev LastSeq,
// ErrSeq FirstSeq, ExpectedRev Msgs, Value the leader) and reads every
// message still in it, in sequence order, from the stream leader. complete
// says every message the state counts was read.
func (i *instance) readBack(ctx context.Context) ([]history.Entry, bool, error) {
	info, err := i.streamState(ctx)
	if err != nil {
		return nil, false, err
	}
	if info.Msgs == 0 {
		return nil, true, nil
	}
	var entries []history.Entry
	if i.o.Retention == Limits {
		entries, err = i.readOrdered(ctx, info.LastSeq)
	}
	// An ordered consumer reads the copy of the one server it is placed
	// on, which may be a replica still behind after the heal: leader gets
	// read what it could not.
	if i.o.Retention != Limits || err != nil {
		entries, err = i.readByGet(ctx)
	}
	return entries, err == nil && uint64(len(entries)) == info.Msgs, err
}

// streamState waits (bounded) for a work-queue or interest stream to be
// emptied, then records and returns the state.
func (i *instance) streamState(ctx context.Context) (jetstream.StreamState, error) {
	var state jetstream.StreamState
	var leader string
	var invoke int64
	deadline := time.Now().Add(removalWait)
	for {
		invoke = i.now()
		err := retryFor(ctx, 15*time.Second, func(ctx context.Context) error {
			s, err := i.js.Stream(ctx, i.o.stream())
			if err == nil {
				state = s.CachedInfo().State
				if s.CachedInfo().Cluster != nil {
					leader = s.CachedInfo().Cluster.Leader
				}
			}
			return err
		})
		if err != nil {
			i.add(Op{Op: history.Op{Client: readbackClient, Type: OpStreamInfo, Invoke: invoke, Complete: i.now(),
				Outcome: history.Fail, Err: history.ErrOther, ErrMsg: client.ErrMsg(err)}, M: Msg{Stream: i.o.stream()}})
			return state, fmt.Errorf("stream info: %w", err)
		}
		if i.o.Retention == Limits || state.Msgs == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	i.add(Op{Op: history.Op{Client: readbackClient, Type: OpStreamInfo, Outcome: history.OK, Invoke: invoke, Complete: i.now()},
		M: Msg{Stream: i.o.stream(), Leader: leader, LastSeq: state.LastSeq, FirstSeq: state.FirstSeq, Msgs: state.Msgs}})
	return state, nil
}

// readOrdered reads a limits stream with an ordered consumer up to last.
func (i *instance) readOrdered(ctx context.Context, last uint64) ([]history.Entry, error) {
	cons, err := i.js.OrderedConsumer(ctx, i.o.stream(), jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return nil, fmt.Errorf("read back: %w", err)
	}
	var mu sync.Mutex
	bySeq := map[uint64]history.Entry{}
	var seen uint64
	cc, err := cons.Consume(func(m jetstream.Msg) {
		md, err := m.Metadata()
		if err != nil {
			return
		}
		mu.Lock()
		bySeq[md.Sequence.Stream] = entry(md.Sequence.Stream, m.Subject(), m.Data())
		seen = max(seen, md.Sequence.Stream)
		mu.Unlock()
	})
	if err != nil {
		return nil, fmt.Errorf("read back: %w", err)
	}
	deadline := time.Now().Add(readBackBound)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		mu.Lock()
		done := seen >= last
		mu.Unlock()
		if done {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	cc.Stop()
	mu.Lock()
	defer mu.Unlock()
	out := make([]history.Entry, 0, len(bySeq))
	for seq := uint64(1); seq <= last; seq++ {
		if e, ok := bySeq[seq]; ok {
			out = append(out, e)
		}
	}
	if seen < last {
		return out, fmt.Errorf("read back: reached sequence %d of %d within %s", seen, last, readBackBound)
	}
	return out, nil
}

// msgGetReply is the leader's answer to $JS.API.STREAM.MSG.GET (the
// server's JSApiMsgGetResponse).
type msgGetReply struct {
	Message *struct {
		Subject string `json:"subject"`
		Seq     uint64 `json:"seq"`
		Data    []byte `json:"data"`
	} `json:"message"`
	Error *struct {
		Code        int    `json:"code"`
		ErrCode     int    `json:"err_code"`
		Description string `json:"description"`
	} `json:"error"`
}

// errCodeNoMessage is JSNoMessageFoundErr: nothing at or after the sequence.
const errCodeNoMessage = 10037

// readByGet walks a stream with leader gets of the next message at or after
// a sequence (next_by_subj), skipping what was removed. It asks the leader
// even when the stream allows Direct Get, so a lagging follower cannot show
// messages the leader removed.
func (i *instance) readByGet(ctx context.Context) ([]history.Entry, error) {
	var out []history.Entry
	deadline := time.Now().Add(readBackBound)
	for seq := uint64(1); ; {
		if time.Now().After(deadline) {
			return out, fmt.Errorf("read back: not done within %s", readBackBound)
		}
		// Every subject: a stream another workload fills (queue.Attach)
		// holds subjects of its own.
		req, _ := json.Marshal(map[string]any{"seq": seq, "next_by_subj": ">"})
		var r msgGetReply
		err := retryFor(ctx, 10*time.Second, func(ctx context.Context) error {
			m, err := i.admin.RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET."+i.o.stream(), req)
			if err != nil {
				return err
			}
			r = msgGetReply{}
			return json.Unmarshal(m.Data, &r)
		})
		switch {
		case err != nil:
			return out, fmt.Errorf("read back at %d: %w", seq, err)
		case r.Error != nil && r.Error.ErrCode == errCodeNoMessage:
			return out, nil
		case r.Error != nil:
			return out, fmt.Errorf("read back at %d: %s (%d)", seq, r.Error.Description, r.Error.ErrCode)
		case r.Message == nil:
			return out, errors.New("read back: empty reply")
		}
		out = append(out, entry(r.Message.Seq, r.Message.Subject, r.Message.Data))
		seq = r.Message.Seq + 1
	}
}

// entry is one stored message: Key is the producer (the subject's last
// token), Value the payload.
func entry(seq uint64, subject string, data []byte) history.Entry {
	return history.Entry{Seq: seq, Key: subject[strings.LastIndexByte(subject, '.')+1:], Value: string(data)}
}
