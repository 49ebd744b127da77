package queue

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// instance is a queue cell set up on a running cluster.
type instance struct {
	o     Options
	env   *workloads.Env
	nodes []cluster.Node
	admin *nats.Conn
	js    jetstream.JetStream

	// lastSeq is, per ordered subscription, the last stream sequence it
	// delivered, so the drain resumes right after it.
	lastSeq []atomic.Uint64
}

// setup creates the stream and the durable consumers, verifies their
// configuration took, and writes queue.json.
func setup(ctx context.Context, o Options, env *workloads.Env) (*instance, error) {
	return open(ctx, o, env, true)
}

// open is setup, creating the stream only when create is set (Attach
// reads a stream another workload made).
func open(ctx context.Context, o Options, env *workloads.Env, create bool) (*instance, error) {
	i := &instance{o: o, env: env, nodes: env.Cluster.Nodes(), lastSeq: make([]atomic.Uint64, o.Consumers)}
	nc, err := client.Connect(i.nodes, client.Order(0, len(i.nodes)), "queue-admin")
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	i.admin = nc
	if i.js, err = jetstream.New(nc); err != nil {
		i.Close()
		return nil, err
	}
	if create {
		if err := i.createStream(ctx); err != nil {
			i.Close()
			return nil, err
		}
	}
	if o.Pattern == Pull {
		for _, name := range o.ConsumerNames() {
			if err := i.createConsumer(ctx, name); err != nil {
				i.Close()
				return nil, err
			}
		}
	}
	if err := writeCellFile(env.Dir, o); err != nil {
		i.Close()
		return nil, err
	}
	return i, nil
}

// createWithin bounds creating the consumers, asked again while the answer
// is transient (client.RetryTransient), as client.CreateStream bounds the
// stream's: a stream create timed out right after readiness on a loaded
// machine in make test.
const createWithin = 30 * time.Second

func (i *instance) createStream(ctx context.Context) error {
	retention := map[Retention]jetstream.RetentionPolicy{
		Limits: jetstream.LimitsPolicy, WorkQueue: jetstream.WorkQueuePolicy, Interest: jetstream.InterestPolicy,
	}[i.o.Retention]
	cfg := jetstream.StreamConfig{
		Name: i.o.stream(), Subjects: []string{i.o.subjectPrefix() + ">"}, Replicas: i.o.Replicas,
		Retention: retention, Storage: jetstream.FileStorage, Duplicates: i.o.DuplicateWindow.D(),
		AllowDirect: i.o.DirectGet,
	}
	s, err := client.CreateStream(ctx, i.js, cfg, 0)
	if err != nil {
		return err
	}
	got := s.CachedInfo().Config
	if got.Retention != retention || got.Replicas != i.o.Replicas || got.Duplicates != cfg.Duplicates || got.AllowDirect != cfg.AllowDirect {
		return fmt.Errorf("stream %s has retention %s, replicas %d, duplicate window %s, allow_direct %v after asking for %s, %d, %s, %v",
			i.o.stream(), got.Retention, got.Replicas, got.Duplicates, got.AllowDirect, retention, i.o.Replicas, cfg.Duplicates, cfg.AllowDirect)
	}
	return nil
}

// createConsumer makes a durable pull consumer with explicit ack that
// delivers the whole stream. For interest retention it must exist before
// the first publish, or messages with no interest are dropped at once.
func (i *instance) createConsumer(ctx context.Context, name string) error {
	cfg := jetstream.ConsumerConfig{
		Durable: name, AckPolicy: jetstream.AckExplicitPolicy, DeliverPolicy: jetstream.DeliverAllPolicy,
		AckWait: i.o.AckWait.D(), MaxDeliver: i.o.MaxDeliver,
	}
	var c jetstream.Consumer
	err := client.RetryTransient(ctx, createWithin, func(ctx context.Context) (err error) {
		c, err = i.js.CreateConsumer(ctx, i.o.stream(), cfg)
		return err
	})
	if err != nil {
		return fmt.Errorf("create consumer %s: %w", name, err)
	}
	got := c.CachedInfo().Config
	if got.AckWait != cfg.AckWait || got.MaxDeliver != cfg.MaxDeliver || got.AckPolicy != cfg.AckPolicy {
		return fmt.Errorf("consumer %s has ack wait %s, max deliver %d, ack policy %s after asking for %s, %d, %s",
			name, got.AckWait, got.MaxDeliver, got.AckPolicy, cfg.AckWait, cfg.MaxDeliver, cfg.AckPolicy)
	}
	return nil
}

func (i *instance) Close() {
	if i.admin != nil {
		i.admin.Close()
	}
}

// add records an op, its Msg as its Data.
func (i *instance) add(op Op) {
	i.env.History.Add(withMsg(op.Op, op.M))
}

func (i *instance) now() int64 { return i.env.History.Now() }

// Run drives producers, consumers and the sampler until ctx is done, then
// stops them and records the run's span.
func (i *instance) Run(ctx context.Context, _ *nemesis.Script) error {
	start := i.now()
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	spawn := func(f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(ctx); err != nil && ctx.Err() == nil {
				select {
				case errs <- err:
				default:
				}
			}
		}()
	}
	lim := newLimiter(i.o)
	for p := 0; p < i.o.Producers; p++ {
		spawn(func(ctx context.Context) error { return i.produce(ctx, p, lim) })
	}
	for c, name := range i.o.ConsumerNames() {
		if i.o.Pattern == Ordered {
			spawn(func(ctx context.Context) error { return i.orderedRun(ctx, c, name) })
			continue
		}
		for w := 0; w < i.o.Workers; w++ {
			spawn(func(ctx context.Context) error { return i.pullRun(ctx, c, w, name) })
		}
	}
	spawn(i.sample)
	wg.Wait()
	i.add(Op{Op: history.Op{Client: workerClient, Type: OpRun, Outcome: history.OK, Invoke: start, Complete: i.now()}})
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// retryFor calls f until it succeeds, ctx is done or bound passes: setup
// steps of a client may hit a node that is down.
func retryFor(ctx context.Context, bound time.Duration, f func(context.Context) error) error {
	deadline := time.Now().Add(bound)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := f(cctx)
		cancel()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(250 * time.Millisecond):
		}
	}
}
