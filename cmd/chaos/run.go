package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

type runFlags struct {
	workload, runtime, store string
	directGet                string
	patterns                 []string
	versions, nemeses        []string
	timeLimit, interval      time.Duration
	recovery, checkTimeout   time.Duration
	opTimeout, pingInterval  time.Duration
	syncInterval             string
	seed                     uint64
	keys, clients, replicas  []int
	rates                    []string
	catchup                  *catchup.Flags
	keepData                 bool
	expect                   []string
}

func runCmd() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a workload against a fresh cluster under faults, then check and store the history",
		Long: `Run starts a real 3-node JetStream cluster for every cell of the matrix
(--direct-get x --server-version x --nemesis), drives the workload for
--time-limit while the nemesis injects faults, heals, reads the stream back,
checks the history and stores everything under <store>/<run-id>/ with
<store>/latest pointing at it.

With --workload catchup a cell (--direct-get x --server-version) fills an
R3 stream to --backlog, kills and wipes one replica, publishes at --rate
while it is down, restarts it under --memory-limit and measures its memory,
OOM kills, crash loops and catch-up time, then checks that nothing was lost.
--preset seed-oom is the user report's scenario (6 GB, 40 MB/s, 1.5 GiB).

Exit codes: 0 valid, 1 anomalies found, 2 unknown (a check could not decide),
3 usage error, 4 harness error (e.g. the cluster did not start), 130 interrupted.`,
		Example: "  chaos run --workload kv-update\n  chaos run --workload kv-update --direct-get off --nemesis partition-leader,kill --time-limit 60s\n  chaos run --workload catchup\n  chaos run --workload catchup --preset seed-oom --server-version v2.10.7,v2.11.8,v2.15.3 --direct-get off",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.execute(cmd)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workload, "workload", "kv-update", "workload to run: kv-update (stale reads, Direct Get on and off) or catchup (a wiped replica catches up a large stream under a memory limit)")
	fl.StringVar(&f.runtime, "runtime", "auto", "cluster runtime: auto (docker when a daemon answers, else local), docker or local")
	fl.StringVar(&f.store, "store", "store", "folder that holds every run's files")
	fl.DurationVar(&f.timeLimit, "time-limit", 30*time.Second, "how long the workload runs in each cell")
	fl.StringVar(&f.directGet, "direct-get", "both", "Direct Get on the bucket: on, off or both (both runs two cells side by side)")
	fl.StringSliceVar(&f.versions, "server-version", []string{serverbin.DefaultVersion()}, "nats-server versions (vX.Y.Z), comma-separated; each is a cell, built from the Go module proxy and cached")
	fl.StringArrayVar(&f.nemeses, "nemesis", []string{"none"}, "faults the schedule picks from, one per window, comma-separated; a+b injects a and b together; repeat the flag for more cells (kv-update: "+strings.Join(nemesis.Names(), ", ")+")")
	fl.DurationVar(&f.interval, "nemesis-interval", 10*time.Second, "how long each fault lasts, and the quiet gap between faults")
	fl.Uint64Var(&f.seed, "seed", 0, "seed for every random choice (0 picks one; it is printed and stored)")
	fl.IntSliceVar(&f.keys, "keys", []int{10}, "number of keys (a comma list makes one cell each)")
	fl.IntSliceVar(&f.clients, "clients", []int{10}, "number of clients, spread over the nodes (list: cells)")
	fl.StringSliceVar(&f.patterns, "pattern", []string{string(kvupdate.SingleWriter)}, "single-writer (one writer per key: get, then update), contended (any client, any key) or blind-put (list: cells)")
	fl.IntSliceVar(&f.replicas, "replicas", []int{3}, "bucket replicas (list: cells)")
	fl.StringSliceVar(&f.rates, "rate", nil, "kv-update: total ops/s over all clients, 0 = as fast as they go (default 0; list: cells); catchup: bytes/s published during the catch-up, e.g. 40MB")
	fl.DurationVar(&f.opTimeout, "op-timeout", 2*time.Second, "timeout of one KV operation; a write that times out is indeterminate")
	fl.DurationVar(&f.pingInterval, "route-ping-interval", time.Second, "cluster route ping interval; short, so a partition is noticed in seconds")
	fl.StringVar(&f.syncInterval, "sync-interval", "", "JetStream sync_interval: a duration or \"always\" (empty: the server default)")
	fl.DurationVar(&f.recovery, "recovery-timeout", 60*time.Second, "how long to wait for the cluster to recover after the final heal")
	fl.DurationVar(&f.checkTimeout, "check-timeout", 60*time.Second, "time bound of the linearizability check per cell")
	fl.BoolVar(&f.keepData, "keep-data", false, "keep the nodes' JetStream stores after the run")
	f.catchup = catchup.BindFlags(fl)
	fl.StringArrayVar(&f.expect, "expect", nil, "a known anomaly kept as a positive control, CELLS=ANOMALY (e.g. direct-get-on=stale-reads): those cells pass only if it shows, and nothing else does; repeatable")
	return cmd
}

func (f *runFlags) spec(cmd *cobra.Command) (run.Spec, error) {
	dg, err := run.ParseDirectGet(f.directGet)
	if err != nil {
		return run.Spec{}, err
	}
	if f.seed == 0 {
		f.seed = rand.Uint64N(1<<31) + 1
	}
	s := run.Spec{
		Workload: f.workload, Runtime: f.runtime, Store: f.store, TimeLimit: f.timeLimit,
		DirectGet: dg, ServerVersions: f.versions, Nemeses: f.nemeses, NemesisInterval: f.interval,
		Seed: f.seed, RecoveryTimeout: f.recovery, CheckTimeout: f.checkTimeout, KeepData: f.keepData,
		Command: rerunCommand(cmd, f.seed),
	}
	if err := f.workloadFlags(cmd, &s); err != nil {
		return run.Spec{}, err
	}
	s.Expect = f.expect
	s.Cluster.RoutePingInterval = f.pingInterval
	s.Cluster.SyncInterval = f.syncInterval
	return s, s.Validate()
}

// kvOnly and catchupOnly are the flags that mean something to one workload
// only; giving one to the other is a usage error rather than silently
// ignored.
var (
	kvOnly      = []string{"keys", "clients", "pattern", "replicas", "op-timeout", "nemesis", "nemesis-interval", "check-timeout", "time-limit"}
	catchupOnly = []string{"preset", "backlog", "payload", "target", "down", "write-for", "memory-limit", "gomemlimit",
		"max-outstanding-catchup", "catchup-timeout", "settle", "verify-timeout", "crash-loop", "sample-interval",
		"publishers", "window", "publish-timeout", "read-rate"}
)

// workloadFlags fills the spec's workload part and refuses flags of the
// other workload.
func (f *runFlags) workloadFlags(cmd *cobra.Command, s *run.Spec) error {
	other := catchupOnly
	if f.workload == "catchup" {
		other = kvOnly
	}
	for _, name := range other {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("--%s does not apply to --workload %s", name, f.workload)
		}
	}
	if f.workload != "catchup" {
		kvs, err := f.workloads()
		s.KV = kvs
		return err
	}
	o, err := f.catchup.Options()
	if err != nil {
		return err
	}
	if len(f.rates) > 1 {
		return fmt.Errorf("--rate takes one value with --workload catchup")
	}
	if len(f.rates) == 1 {
		b, err := catchup.ParseBytes(f.rates[0])
		if err != nil {
			return fmt.Errorf("--rate %q: want bytes/s such as 40MB: %v", f.rates[0], err)
		}
		o.Rate = b
	}
	if cmd.Flags().Changed("recovery-timeout") {
		o.RecoveryTimeout = f.recovery
	}
	s.Catchup = &o
	return nil
}

// workloads is the cross product of the kv-update flags' lists.
func (f *runFlags) workloads() ([]kvupdate.Options, error) {
	rates := []float64{0}
	if len(f.rates) > 0 {
		rates = rates[:0]
		for _, r := range f.rates {
			v, err := strconv.ParseFloat(r, 64)
			if err != nil {
				return nil, fmt.Errorf("--rate %q: want ops/s, a number", r)
			}
			rates = append(rates, v)
		}
	}
	var out []kvupdate.Options
	for _, k := range f.keys {
		for _, c := range f.clients {
			for _, p := range f.patterns {
				for _, r := range f.replicas {
					for _, rate := range rates {
						out = append(out, kvupdate.Options{Keys: k, Clients: c, Pattern: kvupdate.Pattern(p),
							Replicas: r, Rate: rate, OpTimeout: f.opTimeout}.WithDefaults())
					}
				}
			}
		}
	}
	return out, nil
}

// rerunCommand is the exact command, with the seed, that reruns this run.
func rerunCommand(cmd *cobra.Command, seed uint64) string {
	parts := []string{"chaos", "run"}
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if fl.Name == "seed" {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				parts = append(parts, fmt.Sprintf("--%s=%s", fl.Name, shellQuote(v)))
			}
			return
		}
		parts = append(parts, fmt.Sprintf("--%s=%s", fl.Name, shellQuote(fl.Value.String())))
	})
	return strings.Join(append(parts, fmt.Sprintf("--seed=%d", seed)), " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == ',' || r == '/' || r == ':' || r == '+' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (f *runFlags) execute(cmd *cobra.Command) error {
	spec, err := f.spec(cmd)
	if err != nil {
		return usageErr("%v", err)
	}
	exps, err := run.ParseExpects(f.expect)
	if err != nil {
		return usageErr("%v", err)
	}
	ctx, stop := interruptible("healing, saving the history and tearing down")
	defer stop()
	// Build every server version first, so an unknown one fails before
	// anything starts.
	for _, v := range spec.ServerVersions {
		if _, err := serverbin.Path(ctx, v); errors.Is(err, serverbin.ErrNotServed) {
			return usageErr("%v", err)
		} else if err != nil {
			return harnessErr(err)
		}
	}
	rt, err := openRuntime(ctx, f.runtime, os.Stdout)
	if err != nil {
		return err
	}
	defer rt.cleanup()
	if err := spec.Refuse(rt); err != nil {
		return usageErr("%v", err)
	}
	res, err := run.Execute(ctx, spec, rt, os.Stdout)
	if err != nil {
		return harnessErr(err)
	}
	code := run.ExitCode(res, exps)
	// The page and junit.xml are written even for an interrupted run: a
	// partial run is still worth reading.
	if r, err := reports.Write(res.Dir); err != nil {
		fmt.Fprintf(os.Stderr, "chaos: report: %v\n", err)
		if code == run.ExitValid {
			code = run.ExitHarness // CI needs junit.xml
		}
	} else {
		fmt.Printf("%s\nreport: %s\n", reports.Headline(r.Result, r.Expect...), filepath.Join(res.Dir, reports.HTMLFile))
	}
	return &exitError{code: code}
}

// interruptible cancels on the first SIGINT/SIGTERM so the run heals, saves
// and tears down; a second signal exits at once (cleanup by label still runs
// on the next start).
func interruptible(what string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-ch
		fmt.Fprintf(os.Stderr, "\nchaos: interrupted; %s (Ctrl-C again to quit now)\n", what)
		cancel()
		<-ch
		fmt.Fprintln(os.Stderr, "chaos: quitting without cleanup")
		os.Exit(run.ExitInterrupted)
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
