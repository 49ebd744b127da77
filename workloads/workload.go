// Package workloads owns the Workload interface and the registry of
// workloads. A workload is a client plus a generator plus the checkers that
// judge what it recorded (Jepsen's vocabulary; etcd's tests/robustness
// calls the first two a Traffic). The pipeline in package run knows only
// this interface: adding a workload is one package that calls Register in
// an init function, plus one import line in workloads/all.
//
// The life of one cell, as package run drives it:
//
//	settings := expander(...)               // flags -> one Settings per cell
//	plan := settings.Plan(base)             // cluster, needs, streams: data
//	inst := settings.Setup(ctx, env)        // bucket or stream on the started cluster
//	inst.Run(ctx, script)                   // while the nemesis schedule runs
//	... heal, wait for recovery ...
//	inst.Finish(ctx)                        // final reads, read-back, own files
//	workload.Check(dir, opts)               // the verdict, from the stored files alone
package workloads

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Workload is one kind of traffic and the checkers that judge it.
type Workload interface {
	// Name is what --workload takes.
	Name() string
	// Doc is one line for --help.
	Doc() string
	// Flags binds the workload's own flags on fs. The Expander reads them
	// once fs is parsed.
	Flags(fs *pflag.FlagSet) Expander
	// Decode reads one cell's settings back from run.json or results.json.
	Decode(raw json.RawMessage) (Settings, error)
	// Check judges a stored cell from its files alone. The pipeline calls
	// it after a cell, and `chaos check` on any stored cell, so both give
	// the same verdict.
	Check(dir string, opts checker.Options) ([]checker.Result, error)
}

// Expander turns the parsed flags into one Settings per cell (a list flag
// gives several). changed says whether the user gave a flag, so a preset's
// value is only overridden by an explicit one.
type Expander func(changed func(flag string) bool) ([]Settings, error)

// Settings is one cell's configuration of a workload. It marshals to the
// JSON that run.json and results.json record, and Decode reads it back.
type Settings interface {
	// Tags are the fields that may tell cells apart, in a stable order;
	// cells are named by those whose values differ (record.Spec.Cells).
	Tags() []record.Tag
	// Validate returns a one-line usage error for the first bad value.
	Validate(nodes int) error
	// Plan is what the cell needs and creates, from the run's base
	// cluster: data the pipeline reads before the cell starts.
	Plan(base cluster.Config) Plan
	// Named is the settings with every stream (or bucket) the cell
	// creates named under name, so that a run on a cluster it shares
	// creates its own and deletes exactly those (--runtime external).
	Named(name string) Settings
	// Setup prepares the workload on a started cluster.
	Setup(ctx context.Context, env *Env) (Instance, error)
}

// Plan is what one cell of a workload needs and creates, as plain data.
type Plan struct {
	// Cluster is the cluster the cell needs: the run's base with the
	// workload's memory limits and server knobs.
	Cluster cluster.Config
	// Needs are the runtime controls the workload itself uses, each with
	// what asks for it in the user's terms.
	Needs []Need
	// Timed: the cell runs for --time-limit (true), or until its own
	// phases are over (false).
	Timed bool
	// RecoveryBound bounds the wait for recovery when --recovery-timeout
	// is not given (a catch-up of gigabytes needs longer than the
	// pipeline's default); 0 is the pipeline's default.
	RecoveryBound time.Duration
	// SampleEvery is how often the pipeline's observer reads every node;
	// 0 is observe.DefaultEvery.
	SampleEvery time.Duration
	// Streams are the streams the cell creates; faults aim at the first,
	// and the recovery wait waits for it.
	Streams []Stream
	// AimLeader puts every single-node fault that names no role on the
	// first stream's leader (nemesis.AimAt): a cell that targets one of
	// several streams (the sources workload's --fault-target) hits that
	// stream, not a random node.
	AimLeader bool
	// Label is what the cell's label starts with ("catch-up"), or empty.
	Label string
	// ReadsDirectGet says the workload reads through Direct Get, so that
	// Direct Get on and off are two cells (--direct-get both); a workload
	// that reads nothing through it runs with it off, and --direct-get on
	// or both is refused.
	ReadsDirectGet bool
	// Dues names what falls due on the clock in the cell ("TTL
	// expiries"), which the workload announces through the Script
	// (Script.Due) so that faults can be aimed at those instants
	// (kill@due-1s). Empty: nothing, and a fault aimed at due times is
	// refused.
	Dues string
	// Since is the first nats-server release with what the workload
	// uses (v2.12.0), and Feature names it; a run on an older
	// --server-version is refused before anything starts. Empty: any.
	Since, Feature string
}

// Need is one runtime control a workload uses, and what asks for it:
// "--memory-limit 160MiB", or "" for the workload as a whole. A runtime
// that cannot do it refuses the run in those words.
type Need struct {
	Capability cluster.Capability
	For        string
}

// Refuse is the first need a runtime does not support (supports), in
// the need's own words, or in the workload's when it has none; nil when
// every need is supported.
func Refuse(workload string, needs []Need, supports func(cluster.Capability) error) error {
	for _, n := range needs {
		if err := supports(n.Capability); err != nil {
			if n.For != "" {
				return fmt.Errorf("%s: %w", n.For, err)
			}
			return fmt.Errorf("--workload %s refused: %w", workload, err)
		}
	}
	return nil
}

// Stream is one stream a cell creates: its name, its subjects (Filter),
// one subject under them (for a permission probe) and its replicas. Acks
// says the cell reads it through durable pull consumers and acknowledges
// what they deliver; AtomicPublish and Counters that the stream allows
// atomic batches (ADR-50) or is a counter stream (ADR-49), which the
// cell writes as such. A run on an account it does not own probes each
// of these before anything starts.
type Stream struct {
	Name, Filter, Subject   string
	Replicas                int
	Acks                    bool
	AtomicPublish, Counters bool
}

// NeedsOf lists caps as needs of the workload as a whole.
func NeedsOf(caps ...cluster.Capability) []Need {
	out := make([]Need, len(caps))
	for i, c := range caps {
		out[i] = Need{Capability: c}
	}
	return out
}

// Env is what a workload gets from the pipeline.
type Env struct {
	Cluster   cluster.Cluster
	Dir       string // the cell's folder: the workload writes its own files here
	DirectGet bool
	Seed      uint64
	History   *history.Recorder
	// Observer is the pipeline's observer of every node (memory, state,
	// health, the stream's copies), running from before Setup until after
	// Finish; a workload reads its latest readings, and tells it of a
	// memory limit it changes (Observer.Limit).
	Observer *observe.Observer
	// Phase tells the live progress line what the workload is doing.
	Phase func(phase string)
	// Logf prints one line of the workload's own progress.
	Logf func(format string, args ...any)
	// OnReadBack is how the pipeline hears of the workload's read-back
	// (Env.ReadBack); nil outside the pipeline.
	OnReadBack func(entries int, complete bool)
}

// ReadBack tells the pipeline how much of the stream the workload read
// back after the heal (results.json's stream); a workload that reads none
// back does not call it.
func (e *Env) ReadBack(entries int, complete bool) {
	if e.OnReadBack != nil {
		e.OnReadBack(entries, complete)
	}
}

// Instance is a workload set up on a running cluster.
type Instance interface {
	// Run drives the clients until ctx is done (a timed workload) or its
	// phases are over. Faults the workload injects itself go through faults,
	// so they are windows in the history like the schedule's.
	Run(ctx context.Context, faults *nemesis.Script) error
	// Finish runs after the final heal and the wait for recovery: final
	// reads, the stream read back, the workload's own files.
	Finish(ctx context.Context) error
	// Close releases connections; the pipeline closes the cluster.
	Close()
}

// Default is the workload `chaos run` runs without --workload, and the one
// a run stored before run.json named its workload was.
const Default = "kv-update"

// TimeLimitDefault is the --time-limit a timed workload runs for.
const TimeLimitDefault = 30 * time.Second

var (
	mu       sync.Mutex
	registry = map[string]Workload{}
)

// Register makes a workload available to --workload, and its settings'
// tags to record, which names the cells of its stored runs. It panics on
// a duplicate name: that is a programming error found at start.
func Register(w Workload) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[w.Name()]; dup {
		panic("workloads: " + w.Name() + " registered twice")
	}
	registry[w.Name()] = w
	record.RegisterTags(w.Name(), func(raw json.RawMessage) ([]record.Tag, error) {
		s, err := w.Decode(raw)
		if err != nil {
			return nil, err
		}
		return s.Tags(), nil
	})
}

// Get returns the workload registered under name, or a one-line error that
// lists the names there are.
func Get(name string) (Workload, error) {
	mu.Lock()
	w, ok := registry[name]
	mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("--workload %q: want one of %s", name, strings.Join(Names(), ", "))
	}
	return w, nil
}

// Names lists the registered workloads, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Marshal encodes settings for run.json and results.json.
func Marshal(s Settings) (json.RawMessage, error) {
	b, err := json.Marshal(s)
	return json.RawMessage(b), err
}

// CellSummarizer is an optional Workload: the terminal summary of a stored
// cell, read from its files.
type CellSummarizer interface {
	Summary(dir string) ([]string, error)
}

// RunChecker is an optional Workload: checks across the cells of a run
// (the catch-up workload fits memory against backlog), judged from the
// stored cells like the per-cell checks.
type RunChecker interface {
	CheckRun(cellDirs []string) ([]checker.Result, error)
}

// Watcher is an optional Instance: checks that judge every op as it is
// recorded, for the live line and --stop-on-anomaly. The offline checkers
// stay the verdict. It is optional because only a workload whose anomalies
// show op by op, from the ops alone, can judge them live (kv-update's
// stale reads can; a queue's lost message shows only in the read-back).
type Watcher interface {
	Live() LiveChecker
}

// LiveChecker judges ops as they are recorded. It is called from the
// recorder's goroutine and from the live line's, so it must be safe for
// concurrent use.
type LiveChecker interface {
	// Add takes an op as it is recorded.
	Add(history.Op)
	// Flush judges whatever is still held, at the end of the workload.
	Flush()
	// Tally is the counts so far and the first anomaly, if any.
	Tally() record.Online
}
