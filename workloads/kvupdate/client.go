package kvupdate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/time/rate"

	jsclient "github.com/jetstream-chaos/jetstream-chaos/client" // kv-update has its own type client
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// client is one Jepsen-style process: one connection, one op at a time.
type client struct {
	id     int
	node   int
	nc     *nats.Conn
	js     jetstream.JetStream
	kv     jetstream.KeyValue
	stream jetstream.Stream // bound with kv: the same Direct Get setting
	w      *Workload
	rng    *rand.Rand
	zipf   *rand.Zipf // nil: uniform
	owned  []string
	next   int // index into owned, or the write counter
	wrote  int
}

func (w *Workload) newClient(ctx context.Context, id int) (*client, error) {
	node := id % len(w.nodes)
	// A client that starts once faults may have begun (FinalReads, right
	// after a heal) may find its first node's port closing on it: the
	// dial is asked again while it fails that way.
	nc, err := jsclient.ConnectWithin(ctx, bindWithin, w.nodes, jsclient.Order(node, len(w.nodes)), fmt.Sprintf("chaos-c%d", id))
	if err != nil {
		return nil, fmt.Errorf("client %d: connect: %w", id, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	// Bound after setDirectGet, so the handle's cached stream info carries
	// the allow_direct we asked for (nats.go jetstream/kv.go picks direct or
	// leader gets from the stream info cached at bind).
	var kv jetstream.KeyValue
	var stream jetstream.Stream
	err = jsclient.RetryTransient(ctx, bindWithin, func(ctx context.Context) (err error) {
		if kv, err = js.KeyValue(ctx, w.opts.Bucket); err != nil {
			return fmt.Errorf("bind bucket: %w", err)
		}
		if stream, err = js.Stream(ctx, w.StreamName()); err != nil {
			return fmt.Errorf("bind stream: %w", err)
		}
		return nil
	})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("client %d: %w", id, err)
	}
	c := &client{id: id, node: node, nc: nc, js: js, kv: kv, stream: stream, w: w,
		rng: rand.New(rand.NewPCG(w.opts.Seed, uint64(id)))}
	if w.opts.Pattern == SingleWriter {
		for k := id; k < w.opts.Keys; k += w.opts.Clients {
			c.owned = append(c.owned, Key(k))
		}
	}
	if z := w.opts.KeyDist.Zipf; z > 1 {
		n := w.opts.Keys
		if len(c.owned) > 0 {
			n = len(c.owned)
		}
		c.zipf = rand.NewZipf(c.rng, z, 1, uint64(n-1))
	}
	return c, nil
}

func (c *client) close() { c.nc.Close() }

// pickKey: a single writer walks its own keys in turn (uniform) or by
// popularity (Zipf over its keys, its lowest-numbered the most popular);
// other patterns pick any key.
func (c *client) pickKey() string {
	if len(c.owned) > 0 {
		if c.zipf != nil {
			return c.owned[c.zipf.Uint64()]
		}
		k := c.owned[c.next%len(c.owned)]
		c.next++
		return k
	}
	if c.zipf != nil {
		return Key(int(c.zipf.Uint64()))
	}
	return Key(c.rng.IntN(c.w.opts.Keys))
}

// value is unique across the run: client id and a per-client counter.
func (c *client) value() string {
	c.wrote++
	return fmt.Sprintf("c%d-%d", c.id, c.wrote)
}

func (c *client) loop(ctx context.Context, rec *history.Recorder, lim *rate.Limiter) {
	mix := c.w.opts.Mix
	for ctx.Err() == nil {
		if lim != nil && lim.Wait(ctx) != nil {
			return
		}
		key := c.pickKey()
		what := mix.pick(c.rng.IntN(mix.total()))
		if c.w.opts.Pattern == BlindPut {
			c.blind(rec, key, what)
			c.get(rec, key)
			continue
		}
		got := c.get(rec, key)
		if ctx.Err() != nil || got.Outcome != history.OK {
			continue
		}
		switch {
		case what == doDelete:
			c.marker(rec, history.Delete, key)
		case what == doPurge:
			c.marker(rec, history.Purge, key)
		case what == doCreate || got.Err == history.ErrNotFound:
			c.create(rec, key)
		default:
			c.update(rec, key, got.Rev)
		}
	}
}

func (c *client) blind(rec *history.Recorder, key string, what choice) {
	switch what {
	case doDelete:
		c.marker(rec, history.Delete, key)
	case doPurge:
		c.marker(rec, history.Purge, key)
	case doCreate:
		c.create(rec, key)
	default:
		c.put(rec, key)
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
	recordErr(&op, err)
	if op.Node == "" {
		op.Node = c.nc.ConnectedServerName()
	}
	rec.Add(op)
	return op
}

// get is kv.Get as nats.go does it (jetstream/kv.go, kvs.get): the
// subject's last message through the stream handle bound with the bucket,
// so Direct Get or not exactly as kv.Get. Unlike kv.Get it keeps what a
// delete or purge marker says: the get records not found with the
// marker's revision and id, so checkers know which delete it saw.
func (c *client) get(rec *history.Recorder, key string) history.Op {
	op := c.begin(rec, history.Get, key)
	ctx, cancel := c.opCtx()
	defer cancel()
	m, err := c.stream.GetLastMsgForSubject(ctx, c.w.subject(key))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		err = jetstream.ErrKeyNotFound
	case err == nil:
		op.Rev = m.Sequence
		if isMarker(m.Header) {
			op.Value = m.Header.Get(markerIDHeader)
			err = jetstream.ErrKeyNotFound
		} else {
			op.Value = decodeValue(m.Data)
		}
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
	newRev, err := do(ctx, encodeValue(op.Value, c.w.opts.ValueSize))
	op.Rev = newRev
	return c.finish(rec, op, err)
}

// KV's operation headers (nats.go jetstream/kv.go: kvop, kvdel, kvpurge).
const (
	kvOpHeader     = "KV-Operation"
	kvOpDel        = "DEL"
	kvOpPurge      = "PURGE"
	markerIDHeader = "Chaos-Marker" // ours: the unique id of the op that wrote a marker
)

// marker is kv.Delete or kv.Purge as nats.go sends them (jetstream/kv.go,
// kvs.Delete: a message with KV-Operation DEL, or PURGE plus Nats-Rollup:
// sub), with one more header naming the op, and the publish ack kept: the
// marker's revision, which kv.Delete drops. The server treats the extra
// header as any header: the marker is a KV delete like any other.
func (c *client) marker(rec *history.Recorder, t history.OpType, key string) history.Op {
	op := c.begin(rec, t, key)
	op.Value = c.value()
	m := nats.NewMsg(c.w.subject(key))
	if t == history.Purge {
		m.Header.Set(kvOpHeader, kvOpPurge)
		m.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupSubject)
	} else {
		m.Header.Set(kvOpHeader, kvOpDel)
	}
	m.Header.Set(markerIDHeader, op.Value)
	ctx, cancel := c.opCtx()
	defer cancel()
	ack, err := c.js.PublishMsg(ctx, m)
	if err == nil {
		op.Rev = ack.Sequence
	}
	return c.finish(rec, op, err)
}

// isMarker says whether a KV message is a delete or purge marker, as
// nats.go's kvs.get decides (KV-Operation, or a server marker reason).
func isMarker(h nats.Header) bool {
	if len(h) == 0 {
		return false
	}
	if op := h.Get(kvOpHeader); op != "" {
		return op == kvOpDel || op == kvOpPurge
	}
	return h.Get(jetstream.MarkerReasonHeader) != ""
}

// encodeValue pads a unique id to size bytes ("c3-17 ....."), so values
// have the asked size while the history records the id alone.
func encodeValue(id string, size int) []byte {
	if size <= len(id)+1 {
		return []byte(id)
	}
	b := make([]byte, size)
	copy(b, id)
	b[len(id)] = ' '
	for i := len(id) + 1; i < size; i++ {
		b[i] = '.'
	}
	return b
}

// decodeValue is the id of a value encodeValue wrote; a value whose padding
// is not the padding written is returned whole, so it matches no write.
func decodeValue(b []byte) string {
	id, pad, ok := strings.Cut(string(b), " ")
	if !ok {
		return id
	}
	if strings.Trim(pad, ".") != "" {
		return string(b)
	}
	return id
}
