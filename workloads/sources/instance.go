package sources

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/time/rate"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
)

// instance is a sources cell on a running cluster.
type instance struct {
	o     Options
	env   *workloads.Env
	nodes []cluster.Node
	admin *nats.Conn
	js    jetstream.JetStream
	cons  *queue.Consumers
	// stopSampling ends the copy sampler, which outlives Run: it samples
	// through the pipeline's recovery wait until Finish or Close.
	stopSampling func()

	conns client.Conns
}

// setup creates the origins, the mirror, the sourced stream and its
// durable consumers.
func setup(ctx context.Context, o Options, env *workloads.Env) (*instance, error) {
	i := &instance{o: o, env: env, nodes: env.Cluster.Nodes()}
	i.conns.Nodes = i.nodes
	var err error
	if i.admin, err = i.conns.Connect(0, "sources-admin"); err != nil {
		return nil, err
	}
	i.js, _ = jetstream.New(i.admin)
	if err := i.createStreams(ctx); err != nil {
		i.Close()
		return nil, err
	}
	if i.cons, err = queue.Attach(ctx, o.consumerOptions(), env); err != nil {
		i.Close()
		return nil, err
	}
	return i, nil
}

// createStreams creates every origin, then the mirror of the first and
// the stream that sources them all (with the transform when the cell has
// one). client.CreateStream refuses a server that drops a setting.
func (i *instance) createStreams(ctx context.Context) error {
	o := i.o
	retention := jetstream.LimitsPolicy
	if o.Retention == WorkQueue {
		retention = jetstream.WorkQueuePolicy
	}
	var sources []*jetstream.StreamSource
	for n, name := range o.OriginNames() {
		cfg := jetstream.StreamConfig{Name: name, Subjects: []string{o.OriginSubjects(n + 1)}, Replicas: o.Replicas,
			Retention: retention, Storage: jetstream.FileStorage, Duplicates: o.Window().D()}
		if _, err := client.CreateStream(ctx, i.js, cfg, 0); err != nil {
			return err
		}
		src := &jetstream.StreamSource{Name: name}
		if o.Transform {
			subj := o.OriginSubjects(n + 1)
			src.SubjectTransforms = []jetstream.SubjectTransformConfig{{Source: subj, Destination: o.SourcedSubject(subj)}}
		}
		sources = append(sources, src)
	}
	if m := o.Mirror(); m != "" {
		cfg := jetstream.StreamConfig{Name: m, Mirror: &jetstream.StreamSource{Name: o.Origin(1)}, Replicas: o.Replicas,
			Storage: jetstream.FileStorage}
		if _, err := client.CreateStream(ctx, i.js, cfg, 0); err != nil {
			return err
		}
	}
	cfg := jetstream.StreamConfig{Name: o.Sourced(), Sources: sources, Replicas: o.Replicas, Storage: jetstream.FileStorage,
		Duplicates: o.Window().D()}
	_, err := client.CreateStream(ctx, i.js, cfg, 0)
	return err
}

// Client ids of the workload's own actors; the consumers' are the queue
// workload's (1000 and up).
const (
	producerClient = 0   // + producer index
	samplerClient  = 900 // the copy sampler
)

// Run drives the producers, the copy sampler and the consumers of the
// sourced stream until ctx is done.
func (i *instance) Run(ctx context.Context, _ *nemesis.Script) error {
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	spawn := func(f func(context.Context) error) {
		wg.Go(func() {
			if err := f(ctx); err != nil && ctx.Err() == nil {
				select {
				case errs <- err:
				default:
				}
			}
		})
	}
	lim := rate.NewLimiter(rate.Limit(i.o.Rate), 1)
	for k := range i.o.Producers * i.o.Origins {
		spawn(func(ctx context.Context) error { return i.produce(ctx, k, lim) })
	}
	i.startSampling(ctx)
	spawn(i.cons.Run)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// startSampling starts the copy sampler once, on a context of its own.
func (i *instance) startSampling(ctx context.Context) {
	if i.stopSampling != nil {
		return
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		i.sample(sctx)
	}()
	i.stopSampling = func() {
		cancel()
		<-done
	}
}

// endSampling stops the sampler and waits for it; safe to call again.
func (i *instance) endSampling() {
	if i.stopSampling != nil {
		i.stopSampling()
		i.stopSampling = func() {}
	}
}

// sample records the copies' state once a second until ctx is done.
func (i *instance) sample(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		i.copyState(ctx, false)
	}
}

// Close closes every connection.
func (i *instance) Close() {
	i.endSampling()
	if i.cons != nil {
		i.cons.Close()
	}
	i.conns.Close()
}
