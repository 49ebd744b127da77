package kvupdate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate/online"
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

// Flags binds --keys, --clients, --pattern, --replicas, --rate,
// --history and --mix (each a list: every combination is a cell), and
// --key-dist, --value-size, --op-timeout and --converge-timeout.
func (workload) Flags(fs *pflag.FlagSet) workloads.Expander {
	keys := fs.IntSlice("keys", []int{10}, fmt.Sprintf("number of keys, up to %d (a comma list makes one cell each)", MaxKeys))
	clients := fs.IntSlice("clients", []int{10}, "number of clients, spread over the nodes (list: cells)")
	patterns := fs.StringSlice("pattern", []string{string(SingleWriter)}, "single-writer (one writer per key: get, then update), contended (any client, any key) or blind-put (list: cells)")
	replicas := fs.IntSlice("replicas", []int{3}, "bucket replicas (list: cells)")
	rates := fs.StringSlice("rate", []string{"0"}, "total ops/s over all clients, 0 = as fast as they go (list: cells)")
	histories := fs.StringSlice("history", []string{"1"}, "revisions the bucket keeps per key: 1 (nats kv add's default) .. 64, or all (list: cells)")
	mixes := fs.StringArray("mix", []string{DefaultMix.String()}, "the writes after each get, weighted: update:90,delete:5,purge:2,create:3 (repeat --mix for more cells)")
	keyDist := fs.String("key-dist", "uniform", "key popularity: uniform or zipf:S with S > 1 (zipf:1.1)")
	valueSize := fs.Int("value-size", 0, "bytes per written value (the unique id padded); 0: the id alone")
	opTimeout := fs.Duration("op-timeout", 2*time.Second, "timeout of one KV operation; a write that times out is indeterminate")
	converge := fs.Duration("converge-timeout", DefaultConvergeTimeout, "after the heal, how long replicas that differ are read again before they count as diverged (lag within it is reported, not an anomaly)")
	keyTTL := fs.Duration("key-ttl", 0, "add TTL keys in a bucket of their own, each created with this per-key TTL (nats-server 2.11+, whole seconds, at least 1s) and read until it is gone; 0: none")
	markerTTL := fs.Duration("limit-marker-ttl", 0, "the TTL bucket's LimitMarkerTTL: every expiry leaves a marker that lives this long (needs --key-ttl); 0: no markers")
	ttlKeys := fs.Int("ttl-keys", 3, "TTL keys, one client each, spread over the nodes (with --key-ttl)")
	ttlSlack := fs.Duration("ttl-slack", DefaultTTLSlack, "how far either side of its TTL a value may be read or gone (the servers' expiry timers; the containers share the host's clock)")
	return func(func(string) bool) ([]workloads.Settings, error) {
		dist, err := ParseKeyDist(*keyDist)
		if err != nil {
			return nil, err
		}
		out := []Options{{KeyDist: dist, ValueSize: *valueSize, OpTimeout: *opTimeout, ConvergeTimeout: *converge}}
		if *keyTTL != 0 || *markerTTL != 0 {
			out[0].KeyTTL, out[0].LimitMarkerTTL, out[0].TTLKeys, out[0].TTLSlack = *keyTTL, *markerTTL, *ttlKeys, *ttlSlack
		}
		if out, err = expand(out, *rates, func(o *Options, r string) error {
			v, err := strconv.ParseFloat(r, 64)
			if err != nil {
				return fmt.Errorf("--rate %q: want ops/s, a number", r)
			}
			o.Rate = v
			return nil
		}); err != nil {
			return nil, err
		}
		if out, err = expand(out, *histories, func(o *Options, v string) (err error) {
			o.History, err = ParseHistory(v)
			return err
		}); err != nil {
			return nil, err
		}
		if out, err = expand(out, *mixes, func(o *Options, v string) (err error) {
			o.Mix, err = ParseMix(v)
			return err
		}); err != nil {
			return nil, err
		}
		out, _ = expand(out, *replicas, func(o *Options, v int) error { o.Replicas = v; return nil })
		out, _ = expand(out, *patterns, func(o *Options, v string) error { o.Pattern = Pattern(v); return nil })
		out, _ = expand(out, *clients, func(o *Options, v int) error { o.Clients = v; return nil })
		out, _ = expand(out, *keys, func(o *Options, v int) error { o.Keys = v; return nil })
		settings := make([]workloads.Settings, len(out))
		for n, o := range out {
			settings[n] = o.withBucket()
		}
		return settings, nil
	}
}

// expand multiplies the cells by a list flag's values: for each value
// (outermost), every cell so far with set applied.
func expand[T any](cells []Options, values []T, set func(*Options, T) error) ([]Options, error) {
	out := make([]Options, 0, len(cells)*len(values))
	for _, v := range values {
		for _, c := range cells {
			if err := set(&c, v); err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

func (workload) Decode(raw json.RawMessage) (workloads.Settings, error) {
	var o Options
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("kv-update settings: %w", err)
	}
	if o.History == 0 { // stored before --history: every revision was kept
		o.History = KeepAll
	}
	if o.Mix.IsZero() {
		o.Mix = DefaultMix
	}
	return o, nil
}

// Check runs every history checker on the cell's files: history.jsonl,
// stream.jsonl (the read-back), and, for cells of this version,
// bucket.json, observed.jsonl and replicas.json (see judge.go).
func (workload) Check(dir string, opts checker.Options) ([]checker.Result, error) {
	if opts.OutDir == "" {
		opts.OutDir = filepath.Join(dir, "porcupine")
	}
	return CheckDir(dir, opts)
}

// tagSafe makes a setting fit a cell's folder name, which is also a
// Docker bind mount's source (no ':' or ','), and its label, which splits
// tags at '+': "update:80,delete:20" is "update80-delete20".
func tagSafe(s string) string {
	return strings.NewReplacer(":", "", ",", "-").Replace(s)
}

// Tags name what can set kv-update cells apart.
func (o Options) Tags() []record.Tag {
	return []record.Tag{
		{Name: "keys", Value: fmt.Sprint(o.Keys)},
		{Name: "clients", Value: fmt.Sprint(o.Clients)},
		{Name: "pattern", Value: string(o.Pattern)},
		{Name: "replicas", Value: fmt.Sprint(o.Replicas)},
		{Name: "rate", Value: fmt.Sprint(o.Rate)},
		{Name: "history", Value: o.History.String()},
		{Name: "mix", Value: tagSafe(o.Mix.String())},
		{Name: "key-dist", Value: tagSafe(o.KeyDist.String())},
		{Name: "value-size", Value: fmt.Sprint(o.ValueSize)},
	}
}

// Plan: the base cluster (kv-update only talks to the servers), for
// --time-limit, and the bucket's stream.
func (o Options) Plan(base cluster.Config) workloads.Plan {
	b := o.withBucket().Bucket
	p := workloads.Plan{Cluster: base, Timed: true, ReadsDirectGet: true, Streams: []workloads.Stream{
		{Name: "KV_" + b, Filter: "$KV." + b + ".>", Subject: "$KV." + b + ".chaos-preflight", Replicas: o.Replicas}}}
	if o.KeyTTL > 0 {
		t := o.withBucket().ttlBucket()
		p.Since, p.Feature, p.Dues = "v2.11.0", "per-key TTLs (ADR-43, --key-ttl)", "TTL keys' expiries"
		p.Streams = append(p.Streams, workloads.Stream{Name: "KV_" + t, Filter: "$KV." + t + ".>", Subject: "$KV." + t + ".chaos-preflight", Replicas: o.Replicas})
	}
	return p
}

// Named names the bucket.
func (o Options) Named(name string) workloads.Settings {
	o.Bucket = name
	return o
}

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
	if err := w.writeBucket(env.Dir); err != nil {
		w.Close()
		return nil, fmt.Errorf("write %s: %w", BucketFile, err)
	}
	if o.DirectGet {
		env.Logf("%s", w.awaitDirectGet(ctx, directGetWithin))
	}
	i := &instance{w: w, env: env}
	if o.KeyTTL > 0 {
		if i.ttl, err = setupTTL(ctx, env.Cluster.Nodes(), o, env.History); err != nil {
			w.Close()
			return nil, err
		}
	}
	return i, nil
}

// instance is a set-up kv-update cell.
type instance struct {
	w      *Workload
	env    *workloads.Env
	online *online.Checker
	ttl    *ttlKeys // nil without --key-ttl
}

// Live judges ops as they are recorded: held 1s for ops recorded a little
// out of order, with writes kept for the op timeout and some slack.
func (i *instance) Live() workloads.LiveChecker {
	if i.online == nil {
		i.online = online.New(time.Second, i.w.opts.OpTimeout+5*time.Second)
	}
	return i.online
}

func (i *instance) Close() {
	if i.ttl != nil {
		i.ttl.close()
	}
	i.w.Close()
}

func (i *instance) Run(ctx context.Context, script *nemesis.Script) error {
	if i.ttl != nil {
		defer i.ttl.start(ctx, script)()
	}
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
	bg := context.WithoutCancel(ctx)
	entries, lastSeq, complete, err := i.w.readStream(bg, 15*time.Second)
	if err != nil {
		i.env.Logf("read stream: %v", err)
	}
	complete = complete && err == nil
	i.env.ReadBack(len(entries), complete)
	if err := history.WriteStream(filepath.Join(i.env.Dir, "stream.jsonl"), entries, complete); err != nil {
		return fmt.Errorf("write stream: %w", err)
	}
	i.env.Phase("draining the observers")
	observed, head := i.w.DrainObservers(bg, lastSeq, 15*time.Second)
	if head.Missing > 0 {
		i.env.Logf("observers: %d of %d sequences never seen (deleted before they got there, or lost)", head.Missing, lastSeq)
	}
	if err := WriteObserved(filepath.Join(i.env.Dir, ObservedFile), head, observed); err != nil {
		return fmt.Errorf("write observed stream: %w", err)
	}
	if err := i.readReplicas(bg); err != nil {
		return err
	}
	if i.ttl != nil {
		return i.ttl.finish(bg, i.env.Dir, i.env.Phase)
	}
	return nil
}

// readReplicas reads every replica's copy of the stream for the
// divergence check and saves them, again while they differ up to
// --converge-timeout (replicaread.Save).
func (i *instance) readReplicas(ctx context.Context) error {
	i.env.Phase("reading every replica")
	return replicaread.Save(ctx, i.w.replicaReader(i.env.Cluster.Nodes()), i.env.Dir, i.w.opts.ConvergeTimeout, i.env.Logf)
}
