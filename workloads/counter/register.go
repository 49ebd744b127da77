package counter

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Name is what --workload takes.
const Name = "counter"

// Since is the first nats-server release with distributed counters, and
// APILevel the JetStream API level it reports (ADR-49).
const (
	Since    = "v2.12.0"
	APILevel = 2
)

// Defaults are a cell's settings when no flag changes them.
var Defaults = Options{Stream: "COUNTER", Counters: 3, Clients: 1, Replicas: 3, MaxDelta: 10, Retries: 3, Timeout: 2 * time.Second}

func init() { workloads.Register(workload{}) }

// workload plugs the counter workload into the pipeline.
type workload struct{}

func (workload) Name() string { return Name }

func (workload) Doc() string {
	return "clients on every node add to counters (ADR-49, 2.12+) with retried Nats-Msg-Ids and read them back; totals, double applies, reads going back"
}

func (workload) Flags(fs *pflag.FlagSet) workloads.Expander { return bindFlags(fs).expand }

func (workload) Decode(raw json.RawMessage) (workloads.Settings, error) {
	var o Options
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("counter settings: %w", err)
	}
	return o, nil
}

// Check judges a stored cell from its files (see Check).
func (workload) Check(dir string, opts checker.Options) ([]checker.Result, error) {
	return Check(dir, opts)
}

// Tags name what can set counter cells apart: --deltas is the list flag.
func (o Options) Tags() []record.Tag {
	d := "positive"
	if o.Mixed {
		d = "mixed"
	}
	return []record.Tag{{Name: "deltas", Value: d}}
}

// Validate returns a one-line usage error for the first bad value.
func (o Options) Validate(nodes int) error {
	switch {
	case o.Stream == "" || strings.ContainsAny(o.Stream, ".*> \t"):
		return fmt.Errorf("stream name %q is empty or holds . * > or spaces", o.Stream)
	case o.Counters < 1:
		return fmt.Errorf("--counters must be at least 1, got %d", o.Counters)
	case o.Clients < 1:
		return fmt.Errorf("--clients must be at least 1, got %d", o.Clients)
	case o.Replicas < 1 || o.Replicas > nodes:
		return fmt.Errorf("--replicas must be 1..%d (the cluster size), got %d", nodes, o.Replicas)
	case o.MaxDelta < 1:
		return fmt.Errorf("--max-delta must be at least 1, got %d", o.MaxDelta)
	case o.Retries < 0:
		return fmt.Errorf("--add-retries must not be negative, got %d", o.Retries)
	case o.Timeout < 100*time.Millisecond:
		return fmt.Errorf("--add-timeout %s is below 100ms", o.Timeout)
	}
	return nil
}

// Plan: the base cluster, for --time-limit, and the one stream. Reads go
// through Direct Get by turns when it is on, so it is an axis of cells.
func (o Options) Plan(base cluster.Config) workloads.Plan {
	return workloads.Plan{Cluster: base, Timed: true, ReadsDirectGet: true,
		Since: Since, Feature: "distributed counters (ADR-49)",
		Streams: []workloads.Stream{{Name: o.Stream, Filter: o.Stream + ".>", Subject: o.Stream + ".chaos-preflight", Replicas: o.Replicas, Counters: true}}}
}

// Named names the stream, and so its counters.
func (o Options) Named(name string) workloads.Settings {
	o.Stream = name
	return o
}

// Setup creates the stream, once the server says it has counters.
func (o Options) Setup(ctx context.Context, env *workloads.Env) (workloads.Instance, error) {
	o.DirectGet, o.Seed = env.DirectGet, env.Seed
	return setup(ctx, o, env)
}
