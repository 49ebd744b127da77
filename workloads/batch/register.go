package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Name is what --workload takes.
const Name = "batch"

// MaxBatchSize is the most messages the server takes in one atomic batch
// (nats-server stream.go, streamDefaultMaxBatchSize).
const MaxBatchSize = 1000

// Since is the first nats-server release with atomic batch publish, and
// APILevel the JetStream API level it reports (ADR-50).
const (
	Since    = "v2.12.0"
	APILevel = 2
)

// Defaults are a cell's settings when no flag changes them.
var Defaults = Options{Stream: "BATCH", Subjects: 3, BatchSize: 10, Producers: 1, Replicas: 3,
	Mix: Mix{WrongLastSeq: 5, Abandoned: 2, DuplicateID: 5, Plain: 10}}

func init() { workloads.Register(workload{}) }

// workload plugs the batch workload into the pipeline.
type workload struct{}

func (workload) Name() string { return Name }

func (workload) Doc() string {
	return "producers on every node publish atomic batches (ADR-50, 2.12+), some refused on purpose; readers must never see part of one; all or nothing"
}

func (workload) Flags(fs *pflag.FlagSet) workloads.Expander { return bindFlags(fs).expand }

func (workload) Decode(raw json.RawMessage) (workloads.Settings, error) {
	var o Options
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("batch settings: %w", err)
	}
	return o, nil
}

// Check judges a stored cell from its files (see Check).
func (workload) Check(dir string, opts checker.Options) ([]checker.Result, error) {
	return Check(dir, opts)
}

// Tags name what can set batch cells apart: --batch-size is the list flag.
func (o Options) Tags() []record.Tag {
	return []record.Tag{{Name: "batch-size", Value: fmt.Sprint(o.BatchSize)}}
}

// Validate returns a one-line usage error for the first bad value.
func (o Options) Validate(nodes int) error {
	m := o.Mix
	switch {
	case o.Stream == "" || strings.ContainsAny(o.Stream, ".*> \t"):
		return fmt.Errorf("stream name %q is empty or holds . * > or spaces", o.Stream)
	case o.BatchSize < 1 || o.BatchSize > MaxBatchSize:
		return fmt.Errorf("--batch-size must be 1..%d (the server's most in one batch), got %d", MaxBatchSize, o.BatchSize)
	case o.Subjects < 1:
		return fmt.Errorf("--subjects must be at least 1, got %d", o.Subjects)
	case o.Producers < 1:
		return fmt.Errorf("--producers must be at least 1, got %d", o.Producers)
	case o.Replicas < 1 || o.Replicas > nodes:
		return fmt.Errorf("--replicas must be 1..%d (the cluster size), got %d", nodes, o.Replicas)
	case m.WrongLastSeq < 0 || m.Abandoned < 0 || m.DuplicateID < 0 || m.Plain < 0 || m.WrongLastSeq+m.Abandoned+m.DuplicateID+m.Plain > 100:
		return fmt.Errorf("--wrong-last-seq, --abandon, --duplicate-id and --plain are in a hundred: each 0 or more, together at most 100, got %d, %d, %d and %d",
			m.WrongLastSeq, m.Abandoned, m.DuplicateID, m.Plain)
	}
	return nil
}

// Plan: the base cluster, for --time-limit, and the one stream. The
// multi-subject reads go through Direct Get (a batch direct get), so
// Direct Get on and off are cells; with it off the stream does not allow
// it and the readers' ordered consumers are the only reads.
func (o Options) Plan(base cluster.Config) workloads.Plan {
	return workloads.Plan{Cluster: base, Timed: true, ReadsDirectGet: true,
		Since: Since, Feature: "atomic batch publish (ADR-50)",
		Streams: []workloads.Stream{{Name: o.Stream, Filter: o.Stream + ".>", Subject: o.Stream + ".chaos-preflight", Replicas: o.Replicas, AtomicPublish: true}}}
}

// Named names the stream, and so its subjects.
func (o Options) Named(name string) workloads.Settings {
	o.Stream = name
	return o
}

// Setup creates the stream, once the server says it has atomic batches.
func (o Options) Setup(ctx context.Context, env *workloads.Env) (workloads.Instance, error) {
	o.DirectGet, o.Seed = env.DirectGet, env.Seed
	return setup(ctx, o, env)
}
