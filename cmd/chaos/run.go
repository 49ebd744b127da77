package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

type runFlags struct {
	workload, runtime, store string
	directGet                string
	versions, nemeses        []string
	sources, bins            []string // --server-source, --server-bin: local builds, a cell each
	commits                  string   // --commits GOOD..BAD: with --bisect, the commits of the one --server-source
	timeLimit, interval      time.Duration
	recovery, checkTimeout   time.Duration
	pingInterval             time.Duration
	syncInterval             string
	seed                     uint64
	expand                   workloads.Expander
	keepData                 bool
	expect                   []string
	runs                     int
	untilFail, sameSeed      bool
	bisect, stopOnAnomaly    bool
	shard                    string // --shard I/N
	probeTimeout             time.Duration
	verifyTimeout            time.Duration
	ext                      *externalFlags
}

// runCmd builds `chaos run`. The workload's own flags are bound for the
// workload args name (--workload, default kv-update), so each workload has
// its flags and no other's; --help lists them.
func runCmd(args []string) *cobra.Command {
	cmd, _ := newRun(args)
	return cmd
}

// newRun is the run command and the flags it fills.
func newRun(args []string) (*cobra.Command, *runFlags) {
	f := &runFlags{}
	name := workloadArg(args)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run a workload against a fresh cluster under faults, then check and store the history",
		Long: `Run starts a real 3-node JetStream cluster for every cell of the matrix
(--direct-get x --server-version x --nemesis x the workload's own list
flags), drives the workload while the nemesis injects faults, heals, waits
for recovery, checks what was recorded and stores everything under
<store>/<run-id>/ with <store>/latest pointing at it.

Workloads (--workload):
` + workloadDocs() + `
The flags below are those of --workload ` + name + `; ` + "`chaos run --workload NAME --help`" + ` lists
another's. --preset seed-oom (catchup) is the user report's scenario.

Exit codes: 0 valid, 1 anomalies found, 2 unknown (a check could not decide),
3 usage error, 4 harness error (e.g. the cluster did not start), 130 interrupted.`,
		Example: "  chaos run --workload kv-update\n  chaos run --workload kv-update --direct-get off --nemesis partition-leader,kill --time-limit 60s\n  chaos run --workload catchup\n  chaos run --workload catchup --nemesis stepdown\n  chaos run --workload catchup --preset seed-oom --server-version v2.10.7,v2.11.8,v2.15.3 --direct-get off",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.execute(cmd)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workload, "workload", workloads.Default, "workload to run: "+strings.Join(workloads.Names(), ", "))
	fl.StringVar(&f.runtime, "runtime", "auto", "cluster runtime: auto (docker when a daemon answers, else local), docker, local, or external (a cluster you run: --server, --monitor, --fault-hook)")
	fl.StringVar(&f.store, "store", "store", "folder that holds every run's files")
	fl.DurationVar(&f.timeLimit, "time-limit", workloads.TimeLimitDefault, "how long the workload runs in each cell (timed workloads: kv-update, queue, batch; catchup runs through its own phases)")
	fl.StringVar(&f.directGet, "direct-get", "both", "Direct Get on the bucket or stream: on, off or both (both runs two cells side by side)")
	fl.StringSliceVar(&f.versions, "server-version", []string{serverbin.DefaultVersion()}, "nats-server versions (vX.Y.Z), comma-separated, or a range of the releases the Go module proxy serves (v2.14.5..v2.15.3); each is a cell, built from the module proxy and cached")
	fl.StringArrayVar(&f.sources, "server-source", nil, "a nats-server git checkout to build, uncommitted changes included, and run as a cell named by its commit (\"+dirty\" when changed); repeatable; with --server-version, its releases are cells too")
	fl.StringArrayVar(&f.bins, "server-bin", nil, "a nats-server binary you built (static, for the docker runtime), run as a cell named by the commit it records; repeatable")
	fl.StringVar(&f.commits, "commits", "", "with --bisect and one --server-source: the commits GOOD..BAD of that checkout to bisect (first parents), each built in a git worktree when probed")
	fl.StringArrayVar(&f.nemeses, "nemesis", []string{"none"}, "faults the schedule picks from, one per window, comma-separated; a+b injects a and b together; "+
		"FAULT:ROLE aims a one-node fault ("+roleNames()+"); FAULT@EVENT[+DELAY] fires it when the event comes ("+eventNames()+", log:/REGEXP/; due is a TTL's or a schedule's time, and due-DELAY injects before it); "+
		"repeat the flag for more cells ("+strings.Join(nemesis.Names(), ", ")+")")
	fl.DurationVar(&f.interval, "nemesis-interval", 10*time.Second, "how long each fault lasts, and the quiet gap between faults")
	fl.Uint64Var(&f.seed, "seed", 0, "seed for every random choice (0 picks one; it is printed and stored)")
	fl.DurationVar(&f.pingInterval, "route-ping-interval", time.Second, "cluster route ping interval; short, so a partition is noticed in seconds")
	fl.StringVar(&f.syncInterval, "sync-interval", "", "JetStream sync_interval: a duration or \"always\" (empty: the server default)")
	fl.DurationVar(&f.recovery, "recovery-timeout", run.DefaultRecoveryTimeout, "how long to wait for the cluster to recover after the final heal (default: 1m, or the workload's own bound)")
	fl.DurationVar(&f.checkTimeout, "check-timeout", 60*time.Second, "time bound of the linearizability check per cell")
	fl.BoolVar(&f.keepData, "keep-data", false, "keep the nodes' JetStream stores after the run")
	fl.IntVar(&f.runs, "runs", 1, "repeat every cell this many times, each with a seed derived from --seed (see --same-seed); the summary gives each cell's failure rate")
	fl.BoolVar(&f.untilFail, "until-fail", false, "with --runs: stop at the first run that finds an anomaly")
	fl.BoolVar(&f.sameSeed, "same-seed", false, "with --runs: give every run --seed itself (timing still differs from run to run)")
	fl.BoolVar(&f.bisect, "bisect", false, "with a --server-version range (v2.14.5..v2.15.3): find the first release where the anomaly stops or starts, running --runs per probed release; a run fails on an anomaly --expect does not excuse")
	fl.BoolVar(&f.stopOnAnomaly, "stop-on-anomaly", false, "stop a cell's workload as soon as the online checks see an anomaly (stale read, read-your-writes, monotonic read); it then heals, recovers and is checked as usual")
	fl.DurationVar(&f.probeTimeout, "probe-timeout", 2*time.Second, "bound on one monitoring request of the fault checks; a paused node is one that does not answer within it")
	fl.DurationVar(&f.verifyTimeout, "fault-verify-timeout", 20*time.Second, "how long a fault check waits to see the fault's effect, and its heal's")
	f.ext = bindExternal(fl)
	f.bindShard(fl)
	fl.StringArrayVar(&f.expect, "expect", nil, "a known anomaly kept as a positive control, CELLS=ANOMALY (e.g. direct-get-on=stale-reads): those cells pass only if it shows, and nothing else does; repeatable")
	if w, err := workloads.Get(name); err == nil {
		f.expand = w.Flags(fl)
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%s", otherWorkloadFlag(err, name)) })
	return cmd, f
}

func roleNames() string {
	var out []string
	for _, r := range nemesis.Roles {
		out = append(out, string(r))
	}
	return strings.Join(out, ", ")
}

func eventNames() string {
	var out []string
	for _, k := range watch.Kinds {
		out = append(out, string(k))
	}
	return strings.Join(out, ", ")
}

// workloadArg is the --workload value in args (kv-update when absent), read
// before the flags are parsed so that the right workload binds its flags.
func workloadArg(args []string) string {
	for i, a := range args {
		switch {
		case a == "--":
			return workloads.Default
		case a == "--workload" && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "--workload="):
			return strings.TrimPrefix(a, "--workload=")
		}
	}
	return workloads.Default
}

func workloadDocs() string {
	var b strings.Builder
	for _, n := range workloads.Names() {
		w, _ := workloads.Get(n)
		fmt.Fprintf(&b, "  %-10s %s\n", n, w.Doc())
	}
	return b.String()
}

// otherWorkloadFlag says which workload a flag belongs to when another
// workload was chosen, rather than only "unknown flag".
func otherWorkloadFlag(err error, chosen string) string {
	msg := err.Error()
	const prefix = "unknown flag: --"
	if !strings.HasPrefix(msg, prefix) {
		return msg
	}
	flag := strings.TrimPrefix(msg, prefix)
	for _, n := range workloads.Names() {
		w, _ := workloads.Get(n)
		fs := pflag.NewFlagSet(n, pflag.ContinueOnError)
		w.Flags(fs)
		if n != chosen && fs.Lookup(flag) != nil {
			return fmt.Sprintf("--%s does not apply to --workload %s (it is a %s flag)", flag, chosen, n)
		}
	}
	return msg
}

func (f *runFlags) spec(cmd *cobra.Command) (record.Spec, error) {
	if _, err := workloads.Get(f.workload); err != nil {
		return record.Spec{}, err
	}
	dg, err := run.ParseDirectGet(f.directGet)
	if err != nil {
		return record.Spec{}, err
	}
	shard, err := f.shardOf(cmd)
	if err != nil {
		return record.Spec{}, err
	}
	if f.seed == 0 {
		f.seed = rand.Uint64N(1<<31) + 1
	}
	changed := cmd.Flags().Changed
	if f.runtime != "external" {
		for _, n := range externalOnly {
			if changed(n) {
				return record.Spec{}, fmt.Errorf("--%s applies to --runtime external only", n)
			}
		}
	}
	if f.probeTimeout <= 0 || f.verifyTimeout <= 0 {
		return record.Spec{}, fmt.Errorf("--probe-timeout and --fault-verify-timeout must be positive")
	}
	if changed("recovery-timeout") && f.recovery <= 0 {
		return record.Spec{}, fmt.Errorf("--recovery-timeout %s: want a positive duration", f.recovery)
	}
	if changed("check-timeout") && f.checkTimeout <= 0 {
		return record.Spec{}, fmt.Errorf("--check-timeout %s: want a positive duration", f.checkTimeout)
	}
	s := record.Spec{
		Workload: f.workload, Runtime: f.runtime, Store: f.store, TimeLimit: f.timeLimit,
		DirectGet: dg, ServerVersions: f.versions, Nemeses: f.nemeses, NemesisInterval: f.interval,
		Seed: f.seed, CheckTimeout: f.checkTimeout, KeepData: f.keepData,
	}
	if changed("recovery-timeout") {
		s.RecoveryTimeout = f.recovery
	}
	if f.runs < 1 {
		return record.Spec{}, fmt.Errorf("--runs %d: want 1 or more", f.runs)
	}
	if (f.untilFail || f.sameSeed) && f.runs < 2 && !f.bisect {
		return record.Spec{}, fmt.Errorf("--until-fail and --same-seed go with --runs 2 or more")
	}
	s.Runs, s.UntilFail, s.SameSeed, s.Bisect, s.StopOnAnomaly = f.runs, f.untilFail, f.sameSeed, f.bisect, f.stopOnAnomaly
	s.Shard = shard
	settings, err := f.expand(changed)
	if err != nil {
		return record.Spec{}, err
	}
	// After the expander: it leaves the workload's flags printing the
	// cell's values (a preset's among them), which the rerun pins.
	s.Command = rerunCommand(cmd, f.seed)
	if len(settings) > 0 && !settings[0].Plan(s.Cluster).Timed && changed("time-limit") {
		return record.Spec{}, fmt.Errorf("--time-limit does not apply to --workload %s: it runs through its own phases", f.workload)
	}
	if len(settings) > 0 && !settings[0].Plan(s.Cluster).ReadsDirectGet {
		// Not an axis: the workload reads nothing through Direct Get, so
		// both settings would run the same cell twice.
		if changed("direct-get") && (len(s.DirectGet) != 1 || s.DirectGet[0]) {
			return record.Spec{}, fmt.Errorf("--direct-get %s does not apply to --workload %s: it reads nothing through Direct Get (its cells run with it off)", f.directGet, f.workload)
		}
		s.DirectGet = []bool{false}
	}
	if err := refuseAimWithNothingDue(f.workload, f.nemeses, settings, s.Cluster); err != nil {
		return record.Spec{}, err
	}
	if err := run.SetSettings(&s, settings); err != nil {
		return record.Spec{}, err
	}
	s.Expect = f.expect
	s.Cluster.RoutePingInterval = f.pingInterval
	s.Cluster.SyncInterval = f.syncInterval
	s.Cluster.ProbeTimeout, s.Cluster.FaultVerifyTimeout = f.probeTimeout, f.verifyTimeout
	if f.runtime == "external" {
		if err := f.ext.shape(&s, changed); err != nil {
			return record.Spec{}, err
		}
	}
	return s, run.Validate(s)
}

// rerunCommand is the exact command, with the seed, that reruns this run:
// the flags given, plus the workload and each of its own flags at the
// value it had, so that a later toolkit whose defaults differ (kv-update's
// --history went from all to 1) still runs the same cell.
func rerunCommand(cmd *cobra.Command, seed uint64) string {
	parts := []string{"chaos", "run"}
	pinned := map[string]bool{"workload": true}
	if w, err := workloads.Get(cmd.Flags().Lookup("workload").Value.String()); err == nil {
		fs := pflag.NewFlagSet("pin", pflag.ContinueOnError)
		w.Flags(fs)
		fs.VisitAll(func(fl *pflag.Flag) { pinned[fl.Name] = true })
	}
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if !fl.Changed && !pinned[fl.Name] {
			return
		}
		switch fl.Name {
		case "seed":
			return
		case "password": // never saved: the rerun reads it from the environment
			parts = append(parts, `--password="$NATS_PASSWORD"`)
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				parts = append(parts, fmt.Sprintf("--%s=%s", fl.Name, record.ShellQuote(v)))
			}
			return
		}
		parts = append(parts, fmt.Sprintf("--%s=%s", fl.Name, record.ShellQuote(fl.Value.String())))
	})
	return strings.Join(append(parts, fmt.Sprintf("--seed=%d", seed)), " ")
}

func (f *runFlags) execute(cmd *cobra.Command) error {
	if err := f.addLocalServers(cmd); err != nil {
		return err
	}
	spec, err := f.spec(cmd)
	if err != nil {
		return usageErr("%v", err)
	}
	exps, err := record.ParseExpects(f.expect)
	if err != nil {
		return usageErr("%v", err)
	}
	ctx, stop := interruptible("healing, saving the history and tearing down")
	defer stop()
	rt, err := f.open(ctx, &spec)
	if errors.Is(err, errNothingToRun) {
		return nil
	} else if err != nil {
		return err
	}
	defer rt.cleanup()
	if nothingToRun(spec) != nil { // the servers of --runtime external named the versions
		return nil
	}
	res, err := run.Execute(ctx, spec, rt, os.Stdout)
	if err != nil {
		return harnessErr(err)
	}
	code := record.ExitCode(res, exps)
	// The page and junit.xml are written even for an interrupted run: a
	// partial run is still worth reading.
	if r, err := reports.Write(res.Dir); err != nil {
		fmt.Fprintf(os.Stderr, "chaos: report: %v\n", err)
		if code == record.ExitValid {
			code = record.ExitHarness // CI needs junit.xml
		}
	} else {
		fmt.Printf("%s\nreport: %s\n", reports.Headline(r.Result, r.Expect...), filepath.Join(res.Dir, reports.HTMLFile))
	}
	writeStoreIndex(res.Dir, os.Stdout, os.Stderr)
	return &exitError{code: code}
}

// buildServers builds every server version first, so an unknown one fails
// before anything starts, and says so: a first build takes a while. A
// bisection builds each release when it reaches it.
func buildServers(ctx context.Context, spec record.Spec) error {
	if spec.Bisect {
		what := "releases"
		if serverbin.IsLocal(spec.ServerVersions[0]) {
			what = "commits"
		}
		fmt.Printf("bisecting %d %s %s..%s: each one probed is built when it is reached (30-60 s each the first time)\n",
			len(spec.ServerVersions), what, spec.ServerVersions[0], spec.ServerVersions[len(spec.ServerVersions)-1])
		return nil
	}
	var todo []string
	versions := versionsToBuild(spec)
	for _, v := range versions {
		if !serverbin.Cached(v) {
			todo = append(todo, v)
		}
	}
	built := 0
	for _, v := range versions {
		cached := serverbin.Cached(v)
		if !cached {
			built++
			fmt.Printf("building nats-server %s from the Go module proxy (%d of %d; usually 30-60 s, then cached in %s)\n",
				v, built, len(todo), serverbin.CacheDir())
		}
		t := time.Now()
		if _, err := serverbin.Path(ctx, v); errors.Is(err, serverbin.ErrNotServed) {
			return usageErr("%v", err)
		} else if err != nil {
			return harnessErr(err)
		}
		if !cached {
			fmt.Printf("built nats-server %s in %s\n", v, time.Since(t).Round(time.Second))
		}
	}
	return nil
}

// addLocalServers builds every --server-source and caches every
// --server-bin, before the spec is made, and makes each a cell: in place
// of the default release, or beside the --server-version ones.
func (f *runFlags) addLocalServers(cmd *cobra.Command) error {
	if f.commits != "" {
		return f.addCommits(cmd)
	}
	if len(f.sources)+len(f.bins) == 0 {
		return nil
	}
	if f.runtime == "external" {
		return usageErr("--server-source and --server-bin do not apply to --runtime external: the servers run what they run")
	}
	if !cmd.Flags().Changed("server-version") {
		f.versions = nil
	}
	for _, dir := range f.sources {
		fmt.Printf("building nats-server from %s (the first build of a tree takes 30-60 s, then it is cached in %s)\n", dir, serverbin.CacheDir())
		t := time.Now()
		name, err := serverbin.FromSource(cmd.Context(), dir)
		if err != nil {
			return usageErr("%v", err)
		}
		fmt.Printf("nats-server %s from %s, ready in %s\n", name, dir, time.Since(t).Round(time.Second))
		f.versions = append(f.versions, name)
	}
	for _, bin := range f.bins {
		name, err := serverbin.FromBinary(bin)
		if err != nil {
			return usageErr("%v", err)
		}
		fmt.Printf("nats-server %s from %s\n", name, bin)
		f.versions = append(f.versions, name)
	}
	return nil
}

// addCommits makes the commits of --commits the versions a --bisect
// probes; each is built when the bisection reaches it.
func (f *runFlags) addCommits(cmd *cobra.Command) error {
	switch {
	case !f.bisect || len(f.sources) != 1 || len(f.bins) > 0 || cmd.Flags().Changed("server-version"):
		return usageErr("--commits %s goes with --bisect and exactly one --server-source, and no --server-bin or --server-version", f.commits)
	case f.runtime == "external":
		return usageErr("--commits does not apply to --runtime external: the servers run what they run")
	}
	names, err := serverbin.Commits(cmd.Context(), f.sources[0], f.commits)
	if err != nil {
		return usageErr("%v", err)
	}
	f.versions = names
	return nil
}

// expandRanges replaces a --server-version range with the releases the Go
// module proxy serves in it.
func expandRanges(ctx context.Context, spec *record.Spec) error {
	var out []string
	for _, v := range spec.ServerVersions {
		if !serverbin.IsRange(v) {
			out = append(out, v)
			continue
		}
		all, err := serverbin.Releases(ctx)
		if err != nil {
			return harnessErr(err)
		}
		all = serverbin.WithBounds(all, v, func(b string) bool { return serverbin.Served(ctx, b) })
		vs, err := serverbin.InRange(all, v)
		if err != nil {
			return usageErr("%v", err)
		}
		out = append(out, vs...)
	}
	spec.ServerVersions = out
	if err := run.Validate(*spec); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// open resolves the runtime and refuses, before anything starts, what it
// cannot do.
func (f *runFlags) open(ctx context.Context, spec *record.Spec) (chosenRuntime, error) {
	if f.runtime == "external" {
		rt, err := f.openExternal(ctx, spec, os.Stdout)
		if err != nil {
			return chosenRuntime{}, err
		}
		return chosenRuntime{Runtime: rt, cleanup: func() { cleanupExternal(rt, os.Stdout) }}, nil
	}
	if err := expandRanges(ctx, spec); err != nil {
		return chosenRuntime{}, err
	}
	if err := nothingToRun(*spec); err != nil {
		return chosenRuntime{}, err
	}
	if err := buildServers(ctx, *spec); err != nil {
		return chosenRuntime{}, err
	}
	rt, err := openRuntime(ctx, f.runtime, os.Stdout)
	if err != nil {
		return chosenRuntime{}, err
	}
	if err := run.Refuse(*spec, rt); err != nil {
		rt.cleanup()
		return chosenRuntime{}, usageErr("%v", err)
	}
	return rt, nil
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
		os.Exit(record.ExitInterrupted)
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}
