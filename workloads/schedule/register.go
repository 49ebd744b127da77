package schedule

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
const Name = "schedule"

// The first releases with each kind of schedule, and the JetStream API
// level each reports (nats-server jetstream_versioning.go: 2 in 2.12.0,
// 4 in 2.14.0).
const (
	SinceAt       = "v2.12.0"
	APILevelAt    = 2
	SinceEvery    = "v2.14.0"
	APILevelEvery = 4
)

// MinPeriod is the shortest @every the server takes (parseMsgSchedule:
// "Only allow intervals of at least a second").
const MinPeriod = time.Second

// Defaults are a cell's settings when no flag changes them.
var Defaults = Options{Stream: "SCHED", Retention: RetentionLimits, Replicas: 3, Clients: 1, Ahead: 3 * time.Second,
	Pause: 200 * time.Millisecond, Repeating: 2, Every: 2 * time.Second, FireBound: 5 * time.Second, FireGrace: 30 * time.Second}

// The values of --schedule-stream.
const (
	RetentionLimits    = "limits"
	RetentionWorkQueue = "workqueue"
)

func init() { workloads.Register(workload{}) }

// workload plugs the schedule workload into the pipeline.
type workload struct{}

func (workload) Name() string { return Name }

func (workload) Doc() string {
	return "schedulers on every node create one-shot and repeating message schedules (ADR-51, 2.12+/2.14+) with unique targets; fired once, on time, never early, none missed, removed after firing"
}

func (workload) Flags(fs *pflag.FlagSet) workloads.Expander { return bindFlags(fs).expand }

func (workload) Decode(raw json.RawMessage) (workloads.Settings, error) {
	var o Options
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("schedule settings: %w", err)
	}
	return o, nil
}

// Check judges a stored cell from its files (see Check).
func (workload) Check(dir string, opts checker.Options) ([]checker.Result, error) {
	return Check(dir, opts)
}

// Tags: --schedule-stream is the list flag.
func (o Options) Tags() []record.Tag {
	return []record.Tag{{Name: "schedule-stream", Value: o.Retention}}
}

// Validate returns a one-line usage error for the first bad value.
func (o Options) Validate(nodes int) error {
	switch {
	case o.Stream == "" || strings.ContainsAny(o.Stream, ".*> \t"):
		return fmt.Errorf("stream name %q is empty or holds . * > or spaces", o.Stream)
	case o.Retention != RetentionLimits && o.Retention != RetentionWorkQueue:
		return fmt.Errorf("--schedule-stream %q: want limits or workqueue", o.Retention)
	case o.Replicas < 1 || o.Replicas > nodes:
		return fmt.Errorf("--replicas must be 1..%d (the cluster size), got %d", nodes, o.Replicas)
	case o.Clients < 0:
		return fmt.Errorf("--clients must not be negative, got %d", o.Clients)
	case o.Clients == 0 && o.Repeating == 0:
		return fmt.Errorf("--clients 0 and --repeating 0 schedule nothing")
	case o.Ahead < time.Second:
		return fmt.Errorf("--fire-ahead %s is below 1s: a one-shot must be due after its create is stored", o.Ahead)
	case o.Pause < 0:
		return fmt.Errorf("--schedule-pause must not be negative, got %s", o.Pause)
	case o.Repeating < 0:
		return fmt.Errorf("--repeating must not be negative, got %d", o.Repeating)
	case o.Repeating > 0 && o.Every < MinPeriod:
		return fmt.Errorf("--schedule-period %s is below the server's minimum of 1s", o.Every)
	case o.Repeating > 0 && o.Every%time.Second != 0:
		return fmt.Errorf("--schedule-period %s is not whole seconds: the server rounds due times to the second", o.Every)
	case o.FireBound <= 0:
		return fmt.Errorf("--fire-bound must be positive, got %s", o.FireBound)
	case o.FireGrace < o.FireBound:
		return fmt.Errorf("--fire-grace %s is below --fire-bound %s", o.FireGrace, o.FireBound)
	}
	return nil
}

// Plan: the base cluster, for --time-limit; the schedule stream, and in a
// work-queue cell the stream sourcing its targets. Repeating schedules
// need 2.14, one-shots 2.12.
func (o Options) Plan(base cluster.Config) workloads.Plan {
	p := workloads.Plan{Cluster: base, Timed: true, Since: SinceAt, Feature: "message schedules (ADR-51, @at)", Dues: "schedules' due times",
		Streams: []workloads.Stream{{Name: o.Stream, Filter: o.Stream + ".>", Subject: o.Stream + ".chaos-preflight", Replicas: o.Replicas}}}
	if o.Repeating > 0 {
		p.Since, p.Feature = SinceEvery, "repeating message schedules (ADR-51, @every)"
	}
	if o.Retention == RetentionWorkQueue {
		p.Streams = append(p.Streams, workloads.Stream{Name: o.Targets(), Subject: o.Stream + ".chaos-preflight", Replicas: o.Replicas})
	}
	return p
}

// Targets is the stream the targets are read from: the schedule stream
// itself, or in a work-queue cell the stream that sources them.
func (o Options) Targets() string {
	if o.Retention == RetentionWorkQueue {
		return o.Stream + "_TARGETS"
	}
	return o.Stream
}

// Named names the streams.
func (o Options) Named(name string) workloads.Settings {
	o.Stream = name
	return o
}

// Setup creates the streams, once the server says it has schedules.
func (o Options) Setup(ctx context.Context, env *workloads.Env) (workloads.Instance, error) {
	o.Seed = env.Seed
	return setup(ctx, o, env)
}
