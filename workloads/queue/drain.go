package queue

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// drainAll drains every consumer at once, after the heal: everything still
// pending is delivered and acknowledged. Each consumer's drain is one
// "drain" op: Outcome ok when the consumer reported nothing pending, info
// when it gave up (no delivery for StallBound, or DrainTimeout), with the
// last pending counts (NumPending, NumAckPending).
func (i *instance) drainAll(ctx context.Context) {
	var wg sync.WaitGroup
	for c, name := range i.o.ConsumerNames() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var op Op
			if i.o.Pattern == Ordered {
				op = i.drainOrdered(ctx, c, name)
			} else {
				op = i.drainPull(ctx, c, name)
			}
			i.add(op)
			if op.Outcome != history.OK {
				i.env.Logf("drain %s: %s", name, op.ErrMsg)
			}
		}()
	}
	wg.Wait()
}

// drainer tracks one consumer's drain against its two bounds.
type drainer struct {
	i            *instance
	op           Op
	start, moved time.Time
}

func (i *instance) newDrainer(c int, name string) *drainer {
	now := time.Now()
	return &drainer{i: i, start: now, moved: now,
		op: Op{Op: history.Op{Client: drainClient + c, Type: OpDrain, Invoke: i.now()}, M: Msg{Consumer: name}}}
}

// over says whether the drain must give up, and records why.
func (d *drainer) over(ctx context.Context) bool {
	switch {
	case ctx.Err() != nil:
		d.op.ErrMsg = "interrupted"
	case time.Since(d.moved) > d.i.o.StallBound.D():
		d.op.ErrMsg = fmt.Sprintf("gave up: nothing delivered for %s", d.i.o.StallBound.D())
	case time.Since(d.start) > d.i.o.DrainTimeout.D():
		d.op.ErrMsg = fmt.Sprintf("gave up: not drained within %s", d.i.o.DrainTimeout.D())
	default:
		return false
	}
	return true
}

func (d *drainer) done(ok bool, pending, ackPending uint64) Op {
	d.op.Complete, d.op.M.Pending, d.op.M.AckPending = d.i.now(), pending, ackPending
	d.op.Outcome = history.Info
	if ok {
		d.op.Outcome, d.op.ErrMsg = history.OK, ""
	}
	return d.op
}

// drainPull fetches and acknowledges (in the cell's ack mode, never a nak
// or a skip) until the consumer reports no message pending and none
// awaiting an ack.
func (i *instance) drainPull(ctx context.Context, c int, name string) Op {
	d := i.newDrainer(c, name)
	p, err := i.newPuller(ctx, drainClient+c, c, name)
	if p == nil {
		d.op.ErrMsg = fmt.Sprintf("could not bind: %v", err)
		return d.done(false, 0, 0)
	}
	defer p.nc.Close()
	p.drain = true
	var pending, ackPending uint64
	for !d.over(ctx) {
		n, _ := p.fetch(max(i.o.Batch, 100))
		if n > 0 {
			d.moved = time.Now()
			continue
		}
		info := i.sampleOne(c, name, drainClient+c)
		i.add(info)
		if info.Outcome == history.OK {
			pending, ackPending = info.M.Pending, info.M.AckPending
			if pending == 0 && ackPending == 0 {
				return d.done(true, 0, 0)
			}
		}
	}
	return d.done(false, pending, ackPending)
}

// drainOrdered reopens ordered subscription c after the last sequence it
// delivered and waits until it reaches the stream's last sequence.
func (i *instance) drainOrdered(ctx context.Context, c int, name string) Op {
	d := i.newDrainer(c, name)
	var last uint64
	err := retryFor(ctx, i.o.StallBound.D(), func(ctx context.Context) error {
		s, err := i.js.Stream(ctx, i.o.stream())
		if err == nil {
			last = s.CachedInfo().State.LastSeq
		}
		return err
	})
	if err != nil {
		d.op.ErrMsg = fmt.Sprintf("stream info: %v", err)
		return d.done(false, 0, 0)
	}
	if i.lastSeq[c].Load() >= last {
		return d.done(true, 0, 0)
	}
	s, err := i.subscribeOrdered(ctx, c, name)
	if s == nil {
		d.op.ErrMsg = fmt.Sprintf("could not subscribe: %v", err)
		return d.done(false, last-i.lastSeq[c].Load(), 0)
	}
	defer s.stop()
	seen := i.lastSeq[c].Load()
	for !d.over(ctx) {
		time.Sleep(sampleEvery)
		now := i.lastSeq[c].Load()
		if now > seen {
			seen, d.moved = now, time.Now()
		}
		info := i.sampleOne(c, name, drainClient+c)
		i.add(info)
		if now >= last {
			return d.done(true, 0, 0)
		}
	}
	return d.done(false, last-i.lastSeq[c].Load(), 0)
}
