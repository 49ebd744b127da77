package kvupdate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/time/rate"

	jsclient "github.com/jetstream-chaos/jetstream-chaos/client" // kv-update has its own type client
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Workload is one cell's bucket, its observer and its clients.
type Workload struct {
	opts  Options
	nodes []cluster.Node
	admin *nats.Conn
	js    jetstream.JetStream
	// clients are bound by Setup and handed to Run.
	clients []*client
	// observed are the ordered consumers watching the stream during Run.
	observed []*runObserver
	sink     *entrySink // what they saw
}

// Setup creates the bucket, sets Direct Get as asked and verifies it took,
// and starts observing the bucket's stream.
func Setup(ctx context.Context, nodes []cluster.Node, opts Options) (*Workload, error) {
	nc, err := jsclient.Connect(nodes, jsclient.Order(0, len(nodes)), "chaos-admin")
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	w := &Workload{opts: opts, nodes: nodes, admin: nc}
	if w.js, err = jetstream.New(nc); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.createBucket(ctx); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.configure(ctx); err != nil {
		w.Close()
		return nil, err
	}
	// The clients bind here, before the run's clock: a --time-limit counts
	// traffic, and a bind slower than it (a fresh cluster on a loaded
	// machine) must not end the run before its first op.
	if w.clients, err = w.bindClients(ctx); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// bindClients connects and binds every client, closing those bound when
// one fails.
func (w *Workload) bindClients(ctx context.Context) ([]*client, error) {
	clients := make([]*client, w.opts.Clients)
	for i := range clients {
		c, err := w.newClient(ctx, i)
		if err != nil {
			for _, c := range clients[:i] {
				c.close()
			}
			return nil, err
		}
		clients[i] = c
	}
	return clients, nil
}

// createWithin bounds creating the bucket on a cluster that just became
// ready: its first JetStream request can time out while the new meta
// leader settles (a flaky first write seen once in make test).
const createWithin = 30 * time.Second

// createBucket creates the bucket, asking again while the answer is
// transient (jsclient.RetryTransient): creating a bucket with the same
// config again is idempotent, so a retry after a timeout whose create did
// land is harmless.
func (w *Workload) createBucket(ctx context.Context) error {
	cfg := jetstream.KeyValueConfig{Bucket: w.opts.Bucket, Replicas: w.opts.Replicas}
	err := jsclient.RetryTransient(ctx, createWithin, func(ctx context.Context) error {
		_, err := w.js.CreateKeyValue(ctx, cfg)
		return err
	})
	if err != nil {
		return fmt.Errorf("create bucket %s: %w", w.opts.Bucket, err)
	}
	return nil
}

// bindWithin bounds binding a client's handles: a meta or stream leader
// still settling on a fresh cluster (or a fault, for a client bound during
// the run) can leave the JetStream API silent for a while.
const bindWithin = 30 * time.Second

// keepAll is the per-key history of --history all: the stream keeps every
// revision of the run and can be read back in full afterwards (KV's own
// maximum is 64; nats.go refuses to bind a bucket with no limit). Real
// buckets keep 1 (the default), which leaves interior deletes all through
// the stream; the observers then see every revision during the run.
const keepAll = 1_000_000_000

// configure sets Direct Get as asked (nats.go's KV turns it on) and the
// retention, with UpdateStream, and verifies both took. Clients bind their
// handles afterwards, so they see the change; CreateKeyValue must not be
// called again: it would reset it (nats.go jetstream/kv.go sets
// AllowDirect in CreateKeyValue).
func (w *Workload) configure(ctx context.Context) error {
	var s jetstream.Stream
	err := jsclient.RetryTransient(ctx, createWithin, func(ctx context.Context) (err error) {
		s, err = w.js.Stream(ctx, w.StreamName())
		return err
	})
	if err != nil {
		return err
	}
	cfg := s.CachedInfo().Config
	cfg.AllowDirect = w.opts.DirectGet
	want := w.opts.History.maxMsgsPerSubject()
	cfg.MaxMsgsPerSubject = want
	// Every stored message is republished for the observers (KV's own
	// RePublish setting): with one revision per key an ordered consumer
	// misses revisions deleted before it reaches them.
	cfg.RePublish = &jetstream.RePublish{Source: w.subject(">"), Destination: republishSubject(w.opts.Bucket) + ".>"}
	// Updating to the same config again is idempotent.
	err = jsclient.RetryTransient(ctx, createWithin, func(ctx context.Context) (err error) {
		s, err = w.js.UpdateStream(ctx, cfg)
		return err
	})
	if err != nil {
		return fmt.Errorf("set allow_direct=%v: %w", w.opts.DirectGet, err)
	}
	var info *jetstream.StreamInfo
	err = jsclient.RetryTransient(ctx, createWithin, func(ctx context.Context) (err error) {
		info, err = s.Info(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if info.Config.RePublish == nil || info.Config.RePublish.Destination != cfg.RePublish.Destination {
		return fmt.Errorf("stream %s did not take republish to %s", w.StreamName(), cfg.RePublish.Destination)
	}
	if info.Config.AllowDirect != w.opts.DirectGet || info.Config.MaxMsgsPerSubject != want {
		return fmt.Errorf("stream %s has allow_direct=%v max_msgs_per_subject=%d after asking for %v and %d",
			w.StreamName(), info.Config.AllowDirect, info.Config.MaxMsgsPerSubject, w.opts.DirectGet, want)
	}
	return nil
}

// StreamName is the bucket's stream.
func (w *Workload) StreamName() string { return "KV_" + w.opts.Bucket }

// subject is key's subject in the bucket's stream.
func (w *Workload) subject(key string) string { return "$KV." + w.opts.Bucket + "." + key }

// Key names key i.
func Key(i int) string { return fmt.Sprintf("k%d", i) }

// Run drives the clients until ctx is done, recording every op.
func (w *Workload) Run(ctx context.Context, rec *history.Recorder) error {
	var lim *rate.Limiter
	if w.opts.Rate > 0 {
		lim = rate.NewLimiter(rate.Limit(w.opts.Rate), w.opts.Clients)
	}
	w.observed = w.startRunObservers(ctx)
	clients := w.clients // bound in Setup; a second Run binds its own
	w.clients = nil
	if clients == nil {
		var err error
		if clients, err = w.bindClients(ctx); err != nil {
			return err
		}
	}
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.close()
			c.loop(ctx, rec, lim)
		}()
	}
	wg.Wait()
	return nil
}

// FinalReads reads every key once through every node, after the heal, so
// that a node that never converged shows up as a stale read.
func (w *Workload) FinalReads(ctx context.Context, rec *history.Recorder) error {
	for n := range w.nodes {
		c, err := w.newClient(ctx, w.opts.Clients+n)
		if err != nil {
			return err
		}
		c.node = n
		for k := 0; k < w.opts.Keys; k++ {
			c.get(rec, Key(k))
		}
		c.close()
	}
	return nil
}

// ReadStream reads the bucket's stream back from its first message to its
// last, in order. complete says the read reached the last sequence; a
// sequence missing below it is a message the stream lost, which is the
// checkers' business.
func (w *Workload) ReadStream(ctx context.Context, bound time.Duration) ([]history.Entry, bool, error) {
	entries, _, complete, err := w.readStream(ctx, bound)
	return entries, complete, err
}

// readStream is ReadStream that also says the stream's last sequence.
func (w *Workload) readStream(ctx context.Context, bound time.Duration) ([]history.Entry, uint64, bool, error) {
	s, err := w.streamAfterHeal(ctx)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		// The JetStream API itself says the bucket's stream is gone (every
		// node lost it, e.g. to a power loss before a sync): that is the
		// stream read back, complete and empty, and every acknowledged
		// write is lost, which is the checkers' business.
		return nil, 0, true, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return nil, 0, false, err
	}
	if info.State.Msgs == 0 {
		return nil, info.State.LastSeq, true, nil
	}
	obs, err := startObserver(ctx, w.js, w.opts.Bucket, "admin", newSink())
	if err != nil {
		return nil, info.State.LastSeq, false, fmt.Errorf("read stream: %w", err)
	}
	entries, complete := obs.drain(ctx, info.State.LastSeq, bound)
	return entries, info.State.LastSeq, complete, nil
}

// streamAfterHeal binds the bucket's stream, asking a few times: right
// after a heal the API may still be electing a leader for it. Not found
// three times over 2 s is an answer, not a hiccup.
func (w *Workload) streamAfterHeal(ctx context.Context) (jetstream.Stream, error) {
	var err error
	for try := 0; try < 3; try++ {
		var s jetstream.Stream
		if s, err = w.js.Stream(ctx, w.StreamName()); err == nil {
			return s, nil
		}
		if !errors.Is(err, jetstream.ErrStreamNotFound) && !jsclient.Transient(err) {
			return nil, err
		}
		time.Sleep(time.Second)
	}
	return nil, err
}

// Close drops the admin connection.
func (w *Workload) Close() {
	for _, c := range w.clients { // bound, and no Run took them
		c.close()
	}
	w.clients = nil
	if w.admin != nil {
		w.admin.Close()
	}
}
