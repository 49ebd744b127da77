package kvupdate

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/time/rate"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// client is one Jepsen-style process: one connection, one op at a time.
type client struct {
	id    int
	node  int
	nc    *nats.Conn
	kv    jetstream.KeyValue
	w     *Workload
	rng   *rand.Rand
	owned []string
	next  int // index into owned, or the write counter
	wrote int
}

func (w *Workload) newClient(ctx context.Context, id int) (*client, error) {
	node := id % len(w.nodes)
	nc, err := connect(w.nodes, node, fmt.Sprintf("chaos-c%d", id))
	if err != nil {
		return nil, fmt.Errorf("client %d: connect: %w", id, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	// Bound after setDirectGet, so the handle's cached stream info carries
	// the allow_direct we asked for (facts.md "Direct Get").
	kv, err := js.KeyValue(ctx, w.opts.Bucket)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("client %d: bind bucket: %w", id, err)
	}
	c := &client{id: id, node: node, nc: nc, kv: kv, w: w,
		rng: rand.New(rand.NewPCG(w.opts.Seed, uint64(id)))}
	if w.opts.Pattern == SingleWriter {
		for k := id; k < w.opts.Keys; k += w.opts.Clients {
			c.owned = append(c.owned, Key(k))
		}
	}
	return c, nil
}

func (c *client) close() { c.nc.Close() }

func (c *client) pickKey() string {
	if len(c.owned) > 0 {
		k := c.owned[c.next%len(c.owned)]
		c.next++
		return k
	}
	return Key(c.rng.IntN(c.w.opts.Keys))
}

// value is unique across the run: client id and a per-client counter.
func (c *client) value() string {
	c.wrote++
	return fmt.Sprintf("c%d-%d", c.id, c.wrote)
}

func (c *client) loop(ctx context.Context, rec *history.Recorder, lim *rate.Limiter) {
	for ctx.Err() == nil {
		if lim != nil && lim.Wait(ctx) != nil {
			return
		}
		key := c.pickKey()
		if c.w.opts.Pattern == BlindPut {
			c.put(rec, key)
			c.get(rec, key)
			continue
		}
		got := c.get(rec, key)
		if ctx.Err() != nil || got.Outcome != history.OK {
			continue
		}
		if got.Err == history.ErrNotFound {
			c.create(rec, key)
		} else {
			c.update(rec, key, got.Rev)
		}
	}
}

// opCtx bounds one op. It does not derive from the run's context: an op in
// flight when the run ends completes and is recorded as it really ended.
func (c *client) opCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), c.w.opts.OpTimeout)
}

func (c *client) begin(rec *history.Recorder, t history.OpType, key string) history.Op {
	return history.Op{Client: c.id, Node: c.nc.ConnectedServerName(), Type: t, Key: key, Invoke: rec.Now()}
}

func (c *client) finish(rec *history.Recorder, op history.Op, err error) history.Op {
	op.Complete = rec.Now()
	cl := classify(err, op.IsWrite())
	op.Outcome, op.Err, op.ErrCode, op.ErrSeq, op.ErrMsg = cl.Outcome, cl.Kind, cl.Code, cl.Seq, cl.Msg
	if op.Node == "" {
		op.Node = c.nc.ConnectedServerName()
	}
	rec.Add(op)
	c.w.Stats.add(op)
	return op
}

func (c *client) get(rec *history.Recorder, key string) history.Op {
	op := c.begin(rec, history.Get, key)
	ctx, cancel := c.opCtx()
	defer cancel()
	e, err := c.kv.Get(ctx, key)
	if err == nil {
		op.Value, op.Rev = string(e.Value()), e.Revision()
	}
	return c.finish(rec, op, err)
}

func (c *client) update(rec *history.Recorder, key string, rev uint64) history.Op {
	return c.write(rec, history.Update, key, rev, func(ctx context.Context, v []byte) (uint64, error) {
		return c.kv.Update(ctx, key, v, rev)
	})
}

func (c *client) create(rec *history.Recorder, key string) history.Op {
	return c.write(rec, history.Create, key, 0, func(ctx context.Context, v []byte) (uint64, error) {
		return c.kv.Create(ctx, key, v)
	})
}

func (c *client) put(rec *history.Recorder, key string) history.Op {
	return c.write(rec, history.Put, key, 0, func(ctx context.Context, v []byte) (uint64, error) {
		return c.kv.Put(ctx, key, v)
	})
}

// write records one write of a fresh unique value through do.
func (c *client) write(rec *history.Recorder, t history.OpType, key string, expected uint64,
	do func(ctx context.Context, value []byte) (uint64, error)) history.Op {
	op := c.begin(rec, t, key)
	op.Value, op.ExpectedRev = c.value(), expected
	ctx, cancel := c.opCtx()
	defer cancel()
	newRev, err := do(ctx, []byte(op.Value))
	op.Rev = newRev
	return c.finish(rec, op, err)
}
