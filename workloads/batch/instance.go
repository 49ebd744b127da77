package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// ReadBackFile holds the stream as read back after the heal (a ReadBack).
const ReadBackFile = "batch-readback.json"

// Options are one batch cell's settings, as run.json records them.
type Options struct {
	Stream    string `json:"stream"`
	Subjects  int    `json:"subjects"`   // the subjects a batch's messages go to, in turn
	BatchSize int    `json:"batch_size"` // messages a batch, its commit included (the server's most is 1000)
	Producers int    `json:"producers"`  // producers on each node
	Replicas  int    `json:"replicas"`
	Mix       Mix    `json:"mix"`
	DirectGet bool   `json:"direct_get"` // the stream allows Direct Get, and the multi-subject reads run
	Seed      uint64 `json:"seed"`
}

// Mix is how many batches in a hundred a producer tries as each kind meant
// to be refused; the rest commit. An abandoned batch holds one of the
// stream's 50 in-flight slots until the server's batch timeout (10 s), so
// a producer abandons at most one batch in that time.
type Mix struct {
	WrongLastSeq int `json:"wrong_last_seq"`
	Abandoned    int `json:"abandoned"`
	DuplicateID  int `json:"duplicate_id"`
	Plain        int `json:"plain,omitempty"` // single messages published on their own
}

// batchTimeout is the server's default time before it drops a batch that
// was never committed (stream.go, streamDefaultMaxBatchTimeout).
const batchTimeout = 10 * time.Second

// next is the kind of a producer's next batch.
func (m Mix) next(rng *rand.Rand, mayAbandon bool) Kind {
	switch n := rng.IntN(100); {
	case n < m.WrongLastSeq:
		return KindWrongLastSeq
	case n < m.WrongLastSeq+m.DuplicateID:
		return KindDuplicateID
	case n < m.WrongLastSeq+m.DuplicateID+m.Plain:
		return KindPlain
	case n < m.WrongLastSeq+m.DuplicateID+m.Plain+m.Abandoned && mayAbandon:
		return KindAbandoned
	}
	return KindCommit
}

// instance is a batch cell on a running cluster: producers and readers on
// every node, each on its own connection.
type instance struct {
	o     Options
	env   *workloads.Env
	nodes []cluster.Node
	js    jetstream.JetStream // the admin's
	conns client.Conns
	// acked is the highest sequence a commit's ack named: the snapshots
	// read up to it, so that every batch lies wholly before or after.
	acked atomic.Uint64
}

// setup creates the stream, asked again while the answer is transient.
func setup(ctx context.Context, o Options, env *workloads.Env) (*instance, error) {
	i := &instance{o: o, env: env, nodes: env.Cluster.Nodes()}
	i.conns.Nodes = i.nodes
	nc, err := i.conns.Connect(0, "batch-admin")
	if err != nil {
		return nil, err
	}
	if i.js, err = jetstream.New(nc); err != nil {
		i.Close()
		return nil, err
	}
	if err := client.RequireAPILevel(ctx, i.js, APILevel, "atomic batch publish (ADR-50)", Since); err != nil {
		i.Close()
		return nil, err
	}
	cfg := jetstream.StreamConfig{Name: o.Stream, Subjects: []string{o.Stream + ".>"}, Replicas: o.Replicas,
		Storage: jetstream.FileStorage, AllowAtomicPublish: true, AllowDirect: o.DirectGet} // direct: the multi-subject reads
	if _, err := client.CreateStream(ctx, i.js, cfg, 0); err != nil {
		i.Close()
		return nil, err
	}
	return i, nil
}

// Run drives the producers and the readers until ctx is done. Producers
// are clients 0 to P-1, one reader a node follows them.
func (i *instance) Run(ctx context.Context, _ *nemesis.Script) error {
	subjects := make([]string, i.o.Subjects)
	for s := range subjects {
		subjects[s] = fmt.Sprintf("%s.s%d", i.o.Stream, s)
	}
	var wg sync.WaitGroup
	nprod := i.o.Producers * len(i.nodes)
	for c := range nprod {
		nc, err := i.conns.Connect(c, fmt.Sprintf("batch-producer-%d", c))
		if err != nil {
			return err
		}
		js, _ := jetstream.New(nc)
		p := &producer{idx: c, js: js, subjects: subjects, size: i.o.BatchSize}
		wg.Add(1)
		go func() { defer wg.Done(); i.produce(ctx, c, nc, p) }()
	}
	for r := range i.nodes {
		nc, err := i.conns.Connect(r, fmt.Sprintf("batch-reader-%d", r))
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() { defer wg.Done(); i.read(ctx, nprod+r, nc) }()
		if i.o.DirectGet { // a batch direct get needs the stream to allow Direct Get
			wg.Add(1)
			go func() { defer wg.Done(); i.snapshots(ctx, nprod+len(i.nodes)+r, nc, subjects) }()
		}
	}
	wg.Wait()
	return nil
}

// produce runs one producer until ctx is done, recording every batch.
func (i *instance) produce(ctx context.Context, id int, nc *nats.Conn, p *producer) {
	rng := rand.New(rand.NewPCG(i.o.Seed, uint64(id)))
	var abandoned time.Time
	h := i.env.History
	for ctx.Err() == nil {
		kind := i.o.Mix.next(rng, time.Since(abandoned) > batchTimeout)
		start := h.Now()
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		b, err := p.publish(cctx, kind)
		cancel()
		if b.Kind == KindAbandoned {
			abandoned = time.Now()
		}
		for a := i.acked.Load(); b.AckSeq > a && !i.acked.CompareAndSwap(a, b.AckSeq); a = i.acked.Load() {
		}
		op := BatchOp(b, errKindOf(err))
		if err != nil { // what a refused batch was answered: a finding names it
			c := client.Classify(err)
			op.ErrCode, op.ErrMsg = c.Code, c.Msg
		}
		if op.Err == history.ErrNoResponders {
			time.Sleep(20 * time.Millisecond) // nothing took it (the stream is not yet, or no longer, served here): no busy loop
		}
		op.Client, op.Node, op.Invoke, op.Complete = id, nc.ConnectedServerName(), start, max(start, h.Now())
		h.Add(op)
	}
}

// errKindOf is what history.jsonl records of a batch's error.
func errKindOf(err error) history.ErrKind {
	if err == nil {
		return ""
	}
	return client.Classify(err).Kind
}

// read follows the whole stream with an ordered consumer until ctx is
// done, recording every delivery.
func (i *instance) read(ctx context.Context, id int, nc *nats.Conn) {
	js, _ := jetstream.New(nc)
	h := i.env.History
	cons, err := js.OrderedConsumer(ctx, i.o.Stream, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		i.env.Logf("reader %d: %v", id, err)
		return
	}
	it, err := cons.Messages()
	if err != nil {
		i.env.Logf("reader %d: %v", id, err)
		return
	}
	go func() { <-ctx.Done(); it.Stop() }()
	for {
		start := h.Now()
		m, err := it.Next()
		if err != nil {
			return // stopped
		}
		md, err := m.Metadata()
		if err != nil {
			continue
		}
		d := Delivery{Seq: md.Sequence.Stream, Batch: m.Headers().Get(BatchHeader)}
		if d.Batch != "" {
			d.Index, _ = strconv.Atoi(m.Headers().Get(IndexHeader))
		}
		op := DeliverOp(d)
		op.Client, op.Node, op.Invoke, op.Complete = id, nc.ConnectedServerName(), start, max(start, h.Now())
		h.Add(op)
	}
}

// snapshots reads the last message of every subject up to the highest
// acknowledged batch, again and again until ctx is done, through the node
// the connection prefers (a batch direct get: any replica may answer).
func (i *instance) snapshots(ctx context.Context, id int, nc *nats.Conn, subjects []string) {
	js, _ := jetstream.New(nc)
	h := i.env.History
	for ctx.Err() == nil {
		upTo := i.acked.Load()
		if upTo == 0 {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		start := h.Now()
		s := Snapshot{UpTo: upTo, Subjects: subjects}
		err := i.snapshot(ctx, js, &s)
		op := SnapOp(s)
		if err != nil {
			op.Outcome, op.Err = history.Fail, errKindOf(err)
		}
		op.Client, op.Node, op.Invoke, op.Complete = id, nc.ConnectedServerName(), start, max(start, h.Now())
		h.Add(op)
	}
}

// snapshot reads the last message of each of s's subjects up to s.UpTo.
// The answer is whole only when its last message says nothing is pending:
// orbit.go's iterator ends without an error when its context expires
// before the server's end-of-batch (natsext.RequestMany returns on a
// deadline), so a cut answer would pass for a read of fewer subjects. A
// cut answer is a read that timed out.
func (i *instance) snapshot(ctx context.Context, js jetstream.JetStream, s *Snapshot) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	msgs, err := jetstreamext.GetLastMsgsFor(ctx, js, i.o.Stream, s.Subjects, jetstreamext.GetLastMsgsUpToSeq(s.UpTo))
	if err != nil {
		return err
	}
	return collect(msgs, s)
}

// numPendingHeader is what a batch direct get's answer says is left after
// each message (nats-server stream.go, JSNumPending): 0 on the last.
const numPendingHeader = "Nats-Num-Pending"

// collect takes an answer's messages into s.Got, and fails unless the
// last says nothing is pending, or the whole answer is 404 No Results.
func collect(msgs iter.Seq2[*jetstream.RawStreamMsg, error], s *Snapshot) error {
	pending := ""
	for m, err := range msgs {
		if errors.Is(err, jetstreamext.ErrNoMessages) && len(s.Got) == 0 {
			return nil // 404 No Results: an answer, that no subject asked has a message
		}
		if err != nil {
			return err
		}
		g := Stored{Seq: m.Sequence, Subject: m.Subject, Batch: m.Header.Get(BatchHeader)}
		if g.Batch != "" {
			g.Index, _ = strconv.Atoi(m.Header.Get(IndexHeader))
		}
		s.Got = append(s.Got, g)
		pending = m.Header.Get(numPendingHeader)
	}
	if pending != "0" {
		return fmt.Errorf("the answer stopped after %d messages, Nats-Num-Pending %q: %w", len(s.Got), pending, context.DeadlineExceeded)
	}
	return nil
}

// Finish reads the stream back into ReadBackFile, even after Ctrl-C: the
// checks need it.
func (i *instance) Finish(ctx context.Context) error {
	i.env.Phase("reading the stream back")
	ctx = context.WithoutCancel(ctx)
	rb := readBack(ctx, i.js, i.o.Stream, time.Minute)
	i.env.ReadBack(len(rb.Msgs), rb.Complete)
	rerr := i.readReplicas(ctx)
	rb.Replicas = rerr == nil
	b, err := json.Marshal(rb)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(i.env.Dir, ReadBackFile), b); err != nil {
		return err
	}
	return rerr
}

// readReplicas reads every server's copy of the stream, again while they
// differ (up to replicaBound), and saves them for replica-divergence: the
// replicas must hold the same messages at the same sequences.
func (i *instance) readReplicas(ctx context.Context) error {
	i.env.Phase("reading every replica")
	// The servers as they are now: after member-replace n3 is n3-r1.
	rd := replicaread.Reader{JS: i.js, Nodes: i.env.Cluster.Nodes(), Stream: i.o.Stream, Entry: func(m jetstream.Msg, seq uint64) history.Entry {
		return history.Entry{Seq: seq, Key: m.Subject(), Value: string(m.Data())} // unique: its batch and index
	}}
	return replicaread.Save(ctx, rd, i.env.Dir, replicaBound, i.env.Logf)
}

// replicaBound is how long replicas that differ after the heal are read
// again before they count as diverged: kv-update's --converge-timeout
// default.
const replicaBound = 30 * time.Second

// Close closes every connection.
func (i *instance) Close() {
	i.conns.Close()
}

// loadReadBack reads ReadBackFile; ok is false when the cell has none (it
// stopped before its Finish).
func loadReadBack(dir string) (rb ReadBack, ok bool, err error) {
	ok, err = atomicfile.ReadJSON(filepath.Join(dir, ReadBackFile), &rb)
	return rb, ok, err
}
