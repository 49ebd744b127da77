package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Name is what --workload takes.
const Name = "queue"

func init() {
	workloads.Register(workload{})
	history.RegisterOpTypes(OpPublish, OpAck, OpAckSync, OpNak, OpRun, OpDrain)
	history.RegisterReadTypes(OpFetch, OpDeliver, OpConsumerInfo, OpStreamInfo) // the report draws them as reads
}

// workload plugs the queue workload into the pipeline.
type workload struct{}

func (workload) Name() string { return Name }

func (workload) Doc() string {
	return "producers publish unique values (Nats-Msg-Id) to an R3 stream, durable pull or ordered consumers read and ack them; lost, duplicated, reordered"
}

func (workload) Flags(fs *pflag.FlagSet) workloads.Expander { return bindFlags(fs).expand }

func (workload) Decode(raw json.RawMessage) (workloads.Settings, error) {
	var o Options
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("queue settings: %w", err)
	}
	return o, nil
}

// Check runs the queue checkers on the cell's history.jsonl, stream.jsonl
// and queue.json.
func (workload) Check(dir string, opts checker.Options) ([]checker.Result, error) {
	c, err := Load(dir)
	if err != nil {
		return nil, err
	}
	return RunCheckers(c, opts.MaxExamples), nil
}

// Summary is the cell's account in words: what was published, delivered,
// lost or duplicated.
func (workload) Summary(dir string) ([]string, error) {
	c, err := Load(dir)
	if err != nil {
		return nil, err
	}
	return Summarize(c, RunCheckers(c, 0)), nil
}

// Plan: the base cluster (the workload only talks to the servers), for
// --time-limit and then a drain, and the one stream. It reads nothing
// through Direct Get (consumers deliver; the read-back asks the leader),
// so Direct Get is no axis of its cells.
func (o Options) Plan(base cluster.Config) workloads.Plan {
	prefix := o.subjectPrefix()
	return workloads.Plan{Cluster: base, Timed: true, Streams: []workloads.Stream{
		{Name: o.stream(), Filter: prefix + ">", Subject: prefix + "chaos-preflight", Replicas: o.Replicas, Acks: o.Pattern != Ordered}}}
}

// Named names the stream, and so its subjects.
func (o Options) Named(name string) workloads.Settings {
	o.Stream = name
	return o
}

// Setup creates the stream and consumers.
func (o Options) Setup(ctx context.Context, env *workloads.Env) (workloads.Instance, error) {
	o.DirectGet, o.Seed = env.DirectGet, env.Seed
	i, err := setup(ctx, o, env)
	if err != nil {
		return nil, err
	}
	return i, nil
}

// Finish drains every consumer (unless interrupted), then reads the stream
// back into stream.jsonl, even after Ctrl-C: the checkers need it; last,
// queue.csv for the report.
func (i *instance) Finish(ctx context.Context) error {
	if ctx.Err() == nil {
		i.env.Phase("final drain")
		i.drainAll(ctx)
	}
	i.env.Phase("reading the stream back")
	entries, complete, err := i.readBack(context.WithoutCancel(ctx))
	if err != nil {
		i.env.Logf("read back: %v", err)
	}
	i.env.ReadBack(len(entries), complete)
	if err := history.WriteStream(filepath.Join(i.env.Dir, StreamFile), entries, complete); err != nil {
		return fmt.Errorf("write stream: %w", err)
	}
	if err := i.writeSeries(); err != nil { // the report's charts, not the verdict's evidence
		i.env.Logf("write %s: %v", SeriesFile, err)
	}
	return nil
}

// writeSeries writes queue.csv from the history as flushed so far: every
// op of the workload and every fault window is in by now (the final heal
// came before Finish).
func (i *instance) writeSeries() error {
	if err := i.env.History.Flush(); err != nil {
		return fmt.Errorf("flush history: %w", err)
	}
	c, err := Load(i.env.Dir)
	if err != nil {
		return fmt.Errorf("%s: %w", SeriesFile, err)
	}
	return WriteSeries(filepath.Join(i.env.Dir, SeriesFile), c)
}
