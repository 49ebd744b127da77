package catchup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Name is what --workload takes.
const Name = "catchup"

func init() { workloads.Register(workload{}) }

// workload plugs the catch-up cell into the pipeline.
type workload struct{}

func (workload) Name() string { return Name }

func (workload) Doc() string {
	return "a wiped replica catches up a large stream while writes go on, under a memory limit (the catch-up OOM report)"
}

// Flags binds the catch-up flags, --rate (bytes/s here) among them.
func (workload) Flags(fs *pflag.FlagSet) workloads.Expander {
	f := BindFlags(fs)
	return func(func(string) bool) ([]workloads.Settings, error) {
		all, err := f.All()
		if err != nil {
			return nil, err
		}
		var out []workloads.Settings
		for _, o := range all {
			out = append(out, o)
		}
		return out, nil
	}
}

func (workload) Decode(raw json.RawMessage) (workloads.Settings, error) {
	var o Options
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("catchup settings: %w", err)
	}
	return o, nil
}

// Check judges a stored cell from its catchup.json alone.
func (workload) Check(dir string, _ checker.Options) ([]checker.Result, error) {
	r, err := Load(dir)
	if err != nil {
		return nil, err
	}
	return buildChecks(&r), nil
}

// Summary is the terminal summary of a stored cell.
func (workload) Summary(dir string) ([]string, error) {
	r, err := Load(dir)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	Print(&b, r)
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n"), nil
}

// Load reads a cell's catchup.json and completes it (Complete).
func Load(dir string) (Result, error) {
	r, err := Read(dir)
	if err != nil {
		return r, err
	}
	return r, Complete(dir, &r)
}

// Read reads a cell's catchup.json as stored, its paths resolved against
// dir (absolute ones, stored before paths were relative, stay).
func Read(dir string) (Result, error) {
	var r Result
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", filepath.Join(dir, ResultFile), err)
	}
	record.ResolvePaths(dir, r.machinePaths()...)
	return r, nil
}

// nodeNames names the cell's nodes, in order.
func (r *Result) nodeNames() []string {
	var names []string
	for _, n := range r.Nodes {
		names = append(names, n.Name)
	}
	return names
}

// Complete adds to r, a cell's catchup.json as stored, what is beside it:
// the series (the pipeline's readings of the nodes) and the counts of the
// log lines of interest (the logs are saved after Finish, as the cluster
// closes). An older cell holds either already.
func Complete(dir string, r *Result) error {
	if r.LogLines == nil {
		r.LogLines = ScanLogs(filepath.Join(dir, "logs"), r.nodeNames())
	}
	if r.Observed == "" {
		return nil
	}
	return addObserved(dir, r)
}

// machinePaths are the Result's paths on the machine that ran the cell.
func (r *Result) machinePaths() []*string { return []*string{&r.Dir, &r.Cluster.Dir} }

// Tags: catch-up cells differ by the backlog when a list is given.
func (o Options) Tags() []record.Tag {
	return []record.Tag{{Name: "backlog", Value: o.Backlog.String()}}
}

// Plan: the cluster the catch-up needs (ClusterConfig), its bounds and
// stream, and what its fault needs (kill, wipe, a memory limit if asked).
func (o Options) Plan(base cluster.Config) workloads.Plan {
	d := o.WithDefaults()
	needs := workloads.NeedsOf(cluster.CapKill, cluster.CapWipe)
	for i := range needs {
		needs[i].For = "the catchup workload"
	}
	if o.MemoryLimit > 0 {
		needs = append(needs, workloads.Need{Capability: cluster.CapMemoryLimit, For: "--memory-limit " + o.MemoryLimit.String()})
	}
	prefix := strings.ToLower(d.Stream) + "."
	return workloads.Plan{Cluster: o.ClusterConfig(base), Needs: needs, RecoveryBound: d.RecoveryTimeout, SampleEvery: d.SampleInterval, Label: "catch-up",
		ReadsDirectGet: true, // the reader on the target reads through it
		Streams:        []workloads.Stream{{Name: d.Stream, Filter: prefix + ">", Subject: prefix + "chaos-preflight", Replicas: 3}}}
}

// Named names the stream, and so its subjects.
func (o Options) Named(name string) workloads.Settings {
	o.Stream = name
	return o
}

// Setup creates the stream, picks the target and connects the publishers.
func (o Options) Setup(ctx context.Context, env *workloads.Env) (workloads.Instance, error) {
	o.DirectGet = env.DirectGet
	r := newCell(o, env)
	if err := r.setup(ctx); err != nil {
		r.closeClients()
		r.finish()
		return nil, err
	}
	return &instance{r: r}, nil
}

// instance is a set-up catch-up cell.
type instance struct {
	r      *cell
	runErr error
}

func (i *instance) Close() { i.r.closeClients() }

func (i *instance) Run(ctx context.Context, faults *nemesis.Script) error {
	i.runErr = i.r.run(ctx, faults)
	if i.runErr != nil {
		i.r.res.Error = i.runErr.Error()
	}
	return i.runErr
}

// Finish compares the replicas, reads every id back (even after Ctrl-C,
// so the record is whole) and writes the cell's files.
func (i *instance) Finish(ctx context.Context) error {
	if i.runErr == nil || errors.Is(i.runErr, context.Canceled) {
		i.r.verify(context.WithoutCancel(ctx))
	}
	i.r.finish()
	if i.r.fleet != nil {
		i.r.fleet.abandon()
	}
	return i.r.writeFiles()
}
