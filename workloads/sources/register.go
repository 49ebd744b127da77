package sources

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Name is what --workload takes.
const Name = "sources"

// Since is the first release the workload runs on: subject transforms on
// sources came in 2.10.0 (nats-server stream.go, StreamSource).
const Since = "v2.10.0"

func init() { workloads.Register(workload{}) }

// workload plugs the sources workload into the pipeline.
type workload struct{}

func (workload) Name() string { return Name }

func (workload) Doc() string {
	return "origins copied by a mirror and a sourcing stream read by durable consumers; loss, duplicates, order and stalls of the copies"
}

func (workload) Flags(fs *pflag.FlagSet) workloads.Expander { return bindFlags(fs).expand }

func (workload) Decode(raw json.RawMessage) (workloads.Settings, error) {
	var o Options
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("sources settings: %w", err)
	}
	return o, nil
}

// Check judges a stored cell from its files (see Check).
func (workload) Check(dir string, opts checker.Options) ([]checker.Result, error) {
	return Check(dir, opts)
}

// Tags name what can set sources cells apart: the list flags.
func (o Options) Tags() []record.Tag {
	onOff := map[bool]string{false: "off", true: "on"}
	return []record.Tag{{Name: "retention", Value: string(o.Retention)}, {Name: "target", Value: string(o.Target)},
		{Name: "transform", Value: onOff[o.Transform]}, {Name: "repeat-ids", Value: onOff[o.RepeatIDs]}}
}

// Plan: the base cluster, for --time-limit; the stream the faults target
// first, so they aim at its leader (AimLeader unless --fault-target any).
// Nothing is read through Direct Get.
func (o Options) Plan(base cluster.Config) workloads.Plan {
	p := o.prefix()
	var origins []workloads.Stream
	for n := range o.Origins {
		origins = append(origins, workloads.Stream{Name: o.Origin(n + 1), Filter: o.OriginSubjects(n + 1),
			Subject: fmt.Sprintf("%s.o%d.chaos-preflight", p, n+1), Replicas: o.Replicas})
	}
	// A mirror and a sourcing stream have no subjects of their own; their
	// preflight probes creating, writing and reading a stream under the
	// run's prefix.
	sourced := workloads.Stream{Name: o.Sourced(), Filter: p + ".all.>", Subject: p + ".all.chaos-preflight", Replicas: o.Replicas, Acks: true}
	var mirror []workloads.Stream
	if m := o.Mirror(); m != "" {
		mirror = []workloads.Stream{{Name: m, Filter: p + ".mirror.>", Subject: p + ".mirror.chaos-preflight", Replicas: o.Replicas}}
	}
	var streams []workloads.Stream
	switch o.Target {
	case TargetMirror:
		streams = append(append(mirror, origins...), sourced)
	case TargetSourced:
		streams = append(append([]workloads.Stream{sourced}, origins...), mirror...)
	default:
		streams = append(append(origins, mirror...), sourced)
	}
	return workloads.Plan{Cluster: base, Timed: true, Streams: streams, AimLeader: o.Target != TargetAny,
		Since: Since, Feature: "subject transforms on sources"}
}

// Named names every stream under name.
func (o Options) Named(name string) workloads.Settings {
	o.Stream = name
	return o
}

// Setup creates the streams and the consumers, and writes sources.json.
func (o Options) Setup(ctx context.Context, env *workloads.Env) (workloads.Instance, error) {
	o.Seed = env.Seed
	if err := writeSettings(env.Dir, o); err != nil {
		return nil, err
	}
	return setup(ctx, o, env)
}
