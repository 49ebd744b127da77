package kvupdate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/online"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Name is what --workload takes.
const Name = "kv-update"

func init() { workloads.Register(workload{}) }

// workload plugs kv-update into the pipeline.
type workload struct{}

func (workload) Name() string { return Name }

func (workload) Doc() string {
	return "clients get a key and update it with the revision they read, on an R3 KV bucket (the stale-read report)"
}

// Flags binds --keys, --clients, --pattern, --replicas, --rate and
// --op-timeout; every list flag multiplies the cells.
func (workload) Flags(fs *pflag.FlagSet) workloads.Expander {
	keys := fs.IntSlice("keys", []int{10}, "number of keys (a comma list makes one cell each)")
	clients := fs.IntSlice("clients", []int{10}, "number of clients, spread over the nodes (list: cells)")
	patterns := fs.StringSlice("pattern", []string{string(SingleWriter)}, "single-writer (one writer per key: get, then update), contended (any client, any key) or blind-put (list: cells)")
	replicas := fs.IntSlice("replicas", []int{3}, "bucket replicas (list: cells)")
	rates := fs.StringSlice("rate", []string{"0"}, "total ops/s over all clients, 0 = as fast as they go (list: cells)")
	opTimeout := fs.Duration("op-timeout", 2*time.Second, "timeout of one KV operation; a write that times out is indeterminate")
	return func(func(string) bool) ([]workloads.Settings, error) {
		var rs []float64
		for _, r := range *rates {
			v, err := strconv.ParseFloat(r, 64)
			if err != nil {
				return nil, fmt.Errorf("--rate %q: want ops/s, a number", r)
			}
			rs = append(rs, v)
		}
		var out []workloads.Settings
		for _, k := range *keys {
			for _, c := range *clients {
				for _, p := range *patterns {
					for _, r := range *replicas {
						for _, rate := range rs {
							out = append(out, Options{Keys: k, Clients: c, Pattern: Pattern(p), Replicas: r,
								Rate: rate, OpTimeout: *opTimeout}.withBucket())
						}
					}
				}
			}
		}
		return out, nil
	}
}

func (workload) Decode(raw json.RawMessage) (workloads.Settings, error) {
	var o Options
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("kv-update settings: %w", err)
	}
	return o, nil
}

// Check runs every history checker on the cell's history.jsonl and
// stream.jsonl.
func (workload) Check(dir string, opts checker.Options) ([]checker.Result, error) {
	h, err := history.Load(dir)
	if err != nil {
		return nil, err
	}
	if opts.OutDir == "" {
		opts.OutDir = filepath.Join(dir, "porcupine")
	}
	return checker.Run(h, checker.All(opts)), nil
}

// Tags name what can set kv-update cells apart.
func (o Options) Tags() []workloads.Tag {
	return []workloads.Tag{
		{Name: "keys", Value: fmt.Sprint(o.Keys)},
		{Name: "clients", Value: fmt.Sprint(o.Clients)},
		{Name: "pattern", Value: string(o.Pattern)},
		{Name: "replicas", Value: fmt.Sprint(o.Replicas)},
		{Name: "rate", Value: fmt.Sprint(o.Rate)},
	}
}

// Needs is empty: kv-update only talks to the servers.
func (Options) Needs() []cluster.Capability { return nil }

// ClusterConfig is the base: kv-update needs nothing special.
func (Options) ClusterConfig(base cluster.Config) cluster.Config { return base }

// Timed: kv-update runs for --time-limit.
func (Options) Timed() bool { return true }

// withBucket names the bucket, the one field no flag sets.
func (o Options) withBucket() Options {
	if o.Bucket == "" {
		o.Bucket = "chaos"
	}
	return o
}

// Setup creates the bucket with Direct Get as the cell asks.
func (o Options) Setup(ctx context.Context, env *workloads.Env) (workloads.Instance, error) {
	o = o.withBucket()
	o.DirectGet, o.Seed = env.DirectGet, env.Seed
	w, err := Setup(ctx, env.Cluster.Nodes(), o)
	if err != nil {
		return nil, err
	}
	return &instance{w: w, env: env}, nil
}

// instance is a set-up kv-update cell.
type instance struct {
	w        *Workload
	env      *workloads.Env
	entries  int
	complete bool
	online   *online.Checker
}

// Online judges ops as they are recorded: held 1s for ops recorded a little
// out of order, with writes kept for the op timeout and some slack.
func (i *instance) Online() *online.Checker {
	if i.online == nil {
		i.online = online.New(time.Second, i.w.opts.OpTimeout+5*time.Second)
	}
	return i.online
}

func (i *instance) Stream() string                 { return i.w.StreamName() }
func (i *instance) JetStream() jetstream.JetStream { return i.w.JetStream() }
func (i *instance) Close()                         { i.w.Close() }

func (i *instance) Run(ctx context.Context, _ *nemesis.Script) error {
	return i.w.Run(ctx, i.env.History)
}

// Finish reads every key through every node (unless interrupted), then
// reads the stream back into stream.jsonl, even after Ctrl-C: the
// checkers need it.
func (i *instance) Finish(ctx context.Context) error {
	if ctx.Err() == nil {
		i.env.Phase("final reads")
		if err := i.w.FinalReads(ctx, i.env.History); err != nil {
			i.env.Logf("final reads: %v", err)
		}
	}
	i.env.Phase("reading the stream back")
	entries, complete, err := i.w.ReadStream(context.WithoutCancel(ctx), 15*time.Second)
	if err != nil {
		i.env.Logf("read stream: %v", err)
	}
	i.entries, i.complete = len(entries), complete && err == nil
	if err := history.WriteStream(filepath.Join(i.env.Dir, "stream.jsonl"), entries, i.complete); err != nil {
		return fmt.Errorf("write stream: %w", err)
	}
	return nil
}

func (i *instance) StreamRead() (int, bool) { return i.entries, i.complete }

func (i *instance) Stats() workloads.Stats {
	s := workloads.Stats{Ops: i.w.Stats.Ops.Load(), Errors: i.w.Stats.Errors.Load(), ErrorsByKind: map[string]int64{}}
	for k, v := range i.w.Stats.ErrorsByKind() {
		s.ErrorsByKind[string(k)] = v
	}
	return s
}
