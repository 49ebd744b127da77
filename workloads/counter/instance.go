package counter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// FinalFile holds each counter's value after the heal (a Final).
const FinalFile = "counter-final.json"

// Options are one counter cell's settings, as run.json records them.
type Options struct {
	Stream    string        `json:"stream"`
	Counters  int           `json:"counters"` // counter subjects
	Clients   int           `json:"clients"`  // adders on each node
	Replicas  int           `json:"replicas"`
	MaxDelta  int           `json:"max_delta"` // an add is 1..MaxDelta
	Mixed     bool          `json:"mixed"`     // adds of either sign; else positive only
	Retries   int           `json:"retries"`   // retries of an add under its id
	Timeout   time.Duration `json:"timeout"`   // one attempt's
	DirectGet bool          `json:"direct_get"`
	Seed      uint64        `json:"seed"`
}

// instance is a counter cell on a running cluster.
type instance struct {
	o     Options
	env   *workloads.Env
	nodes []cluster.Node
	admin *nats.Conn
	conns client.Conns
}

func (o Options) counters() []string {
	out := make([]string, o.Counters)
	for i := range out {
		out[i] = fmt.Sprintf("%s.c%d", o.Stream, i)
	}
	return out
}

// setup creates the stream, asked again while the answer is transient.
func setup(ctx context.Context, o Options, env *workloads.Env) (*instance, error) {
	i := &instance{o: o, env: env, nodes: env.Cluster.Nodes()}
	i.conns.Nodes = i.nodes
	var err error
	if i.admin, err = i.conns.Connect(0, "counter-admin"); err != nil {
		return nil, err
	}
	js, _ := jetstream.New(i.admin)
	if err := client.RequireAPILevel(ctx, js, APILevel, "distributed counters (ADR-49)", Since); err != nil {
		i.Close()
		return nil, err
	}
	cfg := jetstream.StreamConfig{Name: o.Stream, Subjects: []string{o.Stream + ".>"}, Replicas: o.Replicas,
		Storage: jetstream.FileStorage, AllowMsgCounter: true, AllowDirect: o.DirectGet}
	if _, err := client.CreateStream(ctx, js, cfg, 0); err != nil {
		i.Close()
		return nil, err
	}
	return i, nil
}

// Run drives the adders (clients 0 to A-1) and one reader a node until
// ctx is done.
func (i *instance) Run(ctx context.Context, _ *nemesis.Script) error {
	var wg sync.WaitGroup
	na := i.o.Clients * len(i.nodes)
	for c := range na {
		nc, err := i.conns.Connect(c, fmt.Sprintf("counter-adder-%d", c))
		if err != nil {
			return err
		}
		js, _ := jetstream.New(nc)
		p := &adder{idx: c, js: js, counters: i.o.counters(), rng: rand.New(rand.NewPCG(i.o.Seed, uint64(c))), o: i.o}
		wg.Go(func() {
			for ctx.Err() == nil {
				start := i.env.History.Now()
				a := p.add(ctx)
				op := AddOp(a)
				op.Node, op.Invoke, op.Complete = nc.ConnectedServerName(), start, max(start, i.env.History.Now())
				i.env.History.Add(op)
			}
		})
	}
	for r := range i.nodes {
		nc, err := i.conns.Connect(r, fmt.Sprintf("counter-reader-%d", r))
		if err != nil {
			return err
		}
		wg.Go(func() { i.read(ctx, na+r, nc) })
	}
	wg.Wait()
	return nil
}

// read reads the counters in turn until ctx is done, through Direct Get
// and from the leader by turns when the stream allows Direct Get.
func (i *instance) read(ctx context.Context, id int, nc *nats.Conn) {
	h := i.env.History
	counters := i.o.counters()
	for n := 0; ctx.Err() == nil; n++ {
		r := Read{Counter: counters[n%len(counters)], Direct: i.o.DirectGet && n%2 == 0, Client: id, Op: -1}
		start := h.Now()
		var err error
		if r.Direct {
			r.Value, err = readDirect(ctx, nc, i.o.Stream, r.Counter)
		} else {
			r.Value, err = readLeader(ctx, nc, i.o.Stream, r.Counter)
		}
		if errors.Is(err, errNoValue) {
			err = nil // no add stored yet: 0
		}
		r.Node = nc.ConnectedServerName()
		op := ReadOp(r)
		if err != nil {
			op.Outcome, op.Err = history.Fail, client.Classify(err).Kind
			time.Sleep(10 * time.Millisecond)
		}
		op.Invoke, op.Complete = start, max(start, h.Now())
		h.Add(op)
	}
}

// Finish reads every counter from the stream's leader into FinalFile,
// even after Ctrl-C: the checks need it.
func (i *instance) Finish(ctx context.Context) error {
	i.env.Phase("reading the counters")
	ctx = context.WithoutCancel(ctx)
	f := Final{Values: map[string]int64{}, Complete: true}
	for _, c := range i.o.counters() {
		var v int64
		err := client.RetryTransient(ctx, 30*time.Second, func(ctx context.Context) error {
			var err error
			v, err = readLeader(ctx, i.admin, i.o.Stream, c)
			if errors.Is(err, errNoValue) {
				v, err = 0, nil
			}
			return err
		})
		if err != nil {
			f.Complete, f.Detail = false, fmt.Sprintf("%s: %v", c, err)
			continue
		}
		f.Values[c] = v
	}
	rerr := i.readReplicas(ctx)
	f.Replicas = rerr == nil
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(i.env.Dir, FinalFile), b); err != nil {
		return err
	}
	return rerr
}

// readReplicas reads every server's copy of the stream, again while they
// differ (up to replicaBound), and saves them for replica-divergence: the
// replicas must agree on every add and every running total.
func (i *instance) readReplicas(ctx context.Context) error {
	i.env.Phase("reading every replica")
	js, _ := jetstream.New(i.admin)
	// The servers as they are now: after member-replace n3 is n3-r1.
	rd := replicaread.Reader{JS: js, Nodes: i.env.Cluster.Nodes(), Stream: i.o.Stream, Entry: replicaEntry}
	return replicaread.Save(ctx, rd, i.env.Dir, replicaBound, i.env.Logf)
}

// replicaBound is how long replicas that differ after the heal are read
// again before they count as diverged: kv-update's --converge-timeout
// default.
const replicaBound = 30 * time.Second

// replicaEntry is an add as the replicas compare it: its counter, its
// body (the running total after it) and its Nats-Incr.
func replicaEntry(m jetstream.Msg, seq uint64) history.Entry {
	return history.Entry{Seq: seq, Key: m.Subject(), Value: fmt.Sprintf("%s incr %s", m.Data(), m.Headers().Get(incrHeader))}
}

// Close closes every connection.
func (i *instance) Close() {
	i.conns.Close()
}

// loadFinal reads FinalFile; ok is false when the cell has none.
func loadFinal(dir string) (f Final, ok bool, err error) {
	ok, err = atomicfile.ReadJSON(filepath.Join(dir, FinalFile), &f)
	return f, ok, err
}
