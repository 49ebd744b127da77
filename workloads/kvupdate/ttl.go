package kvupdate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	jsclient "github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
)

// The TTL keys' ops in history.jsonl (--key-ttl), each with its payload in
// history.Op.Data: they live in a bucket of their own, and the KV checkers
// leave them to kv-ttl (history.IsKV).
const (
	OpTTLCreate history.OpType = "kv-ttl-create" // a TTLOp: kv.Create with a per-key TTL
	OpTTLGet    history.OpType = "kv-ttl-get"    // a TTLOp: kv.Get of a TTL key
	OpTTLSeen   history.OpType = "kv-ttl-seen"   // a TTLSeen: a message of the TTL bucket the observer read
)

func init() {
	history.RegisterOpTypes(OpTTLCreate)
	history.RegisterReadTypes(OpTTLGet, OpTTLSeen)
}

// TTLOp is a create or a get of a TTL key, with its span on the host's
// clock (Unix ns), which the servers' timers run on.
type TTLOp struct {
	Key          string `json:"key"`
	Value        string `json:"value,omitempty"` // written, or read (Found)
	Rev          uint64 `json:"rev,omitempty"`
	Found        bool   `json:"found,omitempty"`
	WallInvoke   int64  `json:"wall_invoke"`
	WallComplete int64  `json:"wall_complete"`
}

// TTLSeen is one message of the TTL bucket's stream as the observer read
// it: a value, or a marker with its Nats-Marker-Reason.
type TTLSeen struct {
	Key    string `json:"key"`
	Seq    uint64 `json:"seq"`
	Value  string `json:"value,omitempty"`
	Reason string `json:"reason,omitempty"` // a marker's
	Stored int64  `json:"stored"`
}

// ttlBucket is the TTL keys' bucket name.
func (o Options) ttlBucket() string { return o.Bucket + "_ttl" }

// TTLKey names TTL key i.
func TTLKey(i int) string { return fmt.Sprintf("t%d", i) }

// ttlKeys drives the TTL keys: one client per key creates it with the
// TTL, reads it until it is gone, and creates it again.
type ttlKeys struct {
	o     Options
	conns jsclient.Conns
	js    jetstream.JetStream
	rec   *history.Recorder
	mu    sync.Mutex
	last  int64           // the latest create that may be stored: its completion (Unix ns)
	seen  uint64          // the ordered consumer's last sequence
	got   map[uint64]bool // every sequence observed, either way
	stop  context.CancelFunc
	done  chan struct{}
	// script hears each value's expiry, so faults aimed at due times
	// (kill@due) land on them.
	script *nemesis.Script
}

// setupTTL creates the TTL bucket: per-message TTLs allowed, limit
// markers as asked, Direct Get as the cell's.
func setupTTL(ctx context.Context, nodes []cluster.Node, o Options, rec *history.Recorder) (*ttlKeys, error) {
	t := &ttlKeys{o: o, rec: rec, got: map[uint64]bool{}}
	t.conns.Nodes = nodes
	nc, err := t.conns.Connect(0, "chaos-ttl-admin")
	if err != nil {
		return nil, err
	}
	t.js, _ = jetstream.New(nc)
	if err := jsclient.RequireAPILevel(ctx, t.js, 1, "per-key TTLs (ADR-43)", "v2.11.0"); err != nil {
		t.conns.Close()
		return nil, err
	}
	cfg := jetstream.KeyValueConfig{Bucket: o.ttlBucket(), Replicas: o.Replicas, LimitMarkerTTL: o.LimitMarkerTTL}
	err = jsclient.RetryTransient(ctx, createWithin, func(ctx context.Context) error {
		_, err := t.js.CreateKeyValue(ctx, cfg)
		return err
	})
	if err != nil {
		t.conns.Close()
		return nil, fmt.Errorf("create bucket %s: %w", cfg.Bucket, err)
	}
	s, err := t.js.Stream(ctx, "KV_"+cfg.Bucket)
	if err == nil {
		sc := s.CachedInfo().Config
		sc.AllowMsgTTL, sc.AllowDirect = true, o.DirectGet
		// Every stored message is announced as it is stored, so a marker
		// the key's next value evicts at once (one revision a key) is
		// still seen (see startRepublishObserver).
		sc.RePublish = &jetstream.RePublish{Source: "$KV." + cfg.Bucket + ".>", Destination: republishSubject(cfg.Bucket) + ".>"}
		err = jsclient.RetryTransient(ctx, createWithin, func(ctx context.Context) (err error) {
			s, err = t.js.UpdateStream(ctx, sc)
			return err
		})
	}
	if err == nil && (!s.CachedInfo().Config.AllowMsgTTL || s.CachedInfo().Config.AllowDirect != o.DirectGet) {
		err = fmt.Errorf("stream KV_%s did not take allow_msg_ttl and allow_direct %v", cfg.Bucket, o.DirectGet)
	}
	if err != nil {
		t.conns.Close()
		return nil, err
	}
	return t, nil
}

// ttlClientBase is the first TTL client's id: after kv-update's clients.
func (o Options) ttlClientBase() int { return o.Clients + 1000 }

// start runs the observer until finish, and one client per TTL key
// until ctx is done; wait returns when the clients are.
func (t *ttlKeys) start(ctx context.Context, script *nemesis.Script) (wait func()) {
	t.script = script
	octx, stop := context.WithCancel(context.WithoutCancel(ctx))
	t.stop, t.done = stop, make(chan struct{})
	go func() {
		defer close(t.done)
		t.observe(octx)
	}()
	var wg sync.WaitGroup
	for k := range t.o.TTLKeys {
		nc, err := t.conns.Connect(k, fmt.Sprintf("chaos-ttl-%d", k))
		if err != nil {
			continue // the key goes unwritten; its ops say nothing
		}
		js, _ := jetstream.New(nc)
		wg.Go(func() { t.loop(ctx, js, nc, t.o.ttlClientBase()+k, TTLKey(k)) })
	}
	return wg.Wait
}

// ttlPoll spaces one key's gets.
const ttlPoll = 100 * time.Millisecond

// loop creates key with the TTL, reads it until it is gone, and again.
func (t *ttlKeys) loop(ctx context.Context, js jetstream.JetStream, nc *nats.Conn, id int, key string) {
	var kv jetstream.KeyValue
	for n := 1; ctx.Err() == nil; n++ {
		if kv == nil {
			bctx, cancel := context.WithTimeout(ctx, t.o.OpTimeout)
			kv, _ = js.KeyValue(bctx, t.o.ttlBucket())
			cancel()
			if kv == nil {
				time.Sleep(ttlPoll)
				continue
			}
		}
		v := fmt.Sprintf("ttl-c%d-%d", id, n)
		t.record(ctx, OpTTLCreate, id, nc, TTLOp{Key: key, Value: v}, func(ctx context.Context, op *TTLOp) error {
			rev, err := kv.Create(ctx, key, []byte(v), jetstream.KeyTTL(t.o.KeyTTL))
			op.Rev = rev
			if err == nil {
				t.script.Due(time.Now().Add(t.o.KeyTTL), fmt.Sprintf("expiry of %s=%s", key, v))
			}
			return err
		})
		for ctx.Err() == nil {
			time.Sleep(ttlPoll)
			gone := false
			t.record(ctx, OpTTLGet, id, nc, TTLOp{Key: key}, func(ctx context.Context, op *TTLOp) error {
				e, err := kv.Get(ctx, key)
				switch {
				case errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted):
					gone = true
					return nil
				case err != nil:
					return err
				}
				op.Found, op.Value, op.Rev = true, string(e.Value()), e.Revision()
				return nil
			})
			if gone {
				break
			}
		}
	}
}

// record runs one op and records it with its wall-clock span.
func (t *ttlKeys) record(ctx context.Context, typ history.OpType, id int, nc *nats.Conn, d TTLOp, do func(context.Context, *TTLOp) error) {
	op := history.Op{Type: typ, Client: id, Node: nc.ConnectedServerName()}
	op.Invoke, d.WallInvoke = t.rec.Now(), time.Now().UnixNano()
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.o.OpTimeout)
	err := do(octx, &d)
	cancel()
	d.WallComplete, op.Complete = time.Now().UnixNano(), max(op.Invoke, t.rec.Now())
	if err != nil {
		c := jsclient.Classify(err)
		op.Outcome, op.Err, op.ErrCode, op.ErrMsg = c.Outcome(typ == OpTTLCreate), c.Kind, c.Code, c.Msg
		time.Sleep(20 * time.Millisecond)
	} else {
		op.Outcome = history.OK
	}
	if typ == OpTTLCreate && op.Outcome != history.Fail {
		t.mu.Lock()
		t.last = max(t.last, d.WallComplete) // it may be stored: its TTL is in flight
		t.mu.Unlock()
	}
	op.Data, _ = json.Marshal(d)
	t.rec.Add(op)
}
