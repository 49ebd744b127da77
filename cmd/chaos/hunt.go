package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"time"

	"github.com/spf13/cobra"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/hunt"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

var versionRE = regexp.MustCompile(`^v\d+\.\d+\.\d+$`)

func huntCmd() *cobra.Command {
	var (
		budget, runTime time.Duration
		schedules       string
		versions        []string
		store, runtime  string
		seed            uint64
	)
	cmd := &cobra.Command{
		Use:   "hunt",
		Short: "Search fault schedules for anomalies within a time budget: many short kv-update runs, each drawn from a grammar",
		Long: `Hunt runs a campaign of short kv-update runs (Direct Get off) until --budget is
spent. Each run draws its schedule from a grammar: one or two clock faults,
single or two together, and with --schedules aimed (the default) one or two
faults triggered by the cluster's events (leader-change, catchup-start,
catchup-end, snapshot, restart, meta-leader-change, log lines), aimed at a
role or not, after a delay or not; and the workload's knobs (keys, clients,
pattern, history, mix). --schedules clock draws the clock faults alone, for
comparison. The releases of --server-version are taken in turn.

Once a run finds an anomaly class no earlier run found, the weight of what
that run was drawn from is halved, so the campaign moves on to others.
After every run, <store>/hunt.json (the state: an interrupted hunt given the
same --store, --schedules and --seed resumes) and <store>/hunt.md are
written: every class found, the run and schedule that found it, its rerun
command and finding (<store>/findings/<class>.md), and the coverage: runs,
faults drawn, events seen, and the triggers that never fired.

Exit codes: 0 no anomaly found, 1 anomalies found, 3 usage error, 4 harness
error, 130 interrupted (the campaign resumes).`,
		Example: "  chaos hunt --budget 30m --server-version v2.14.9,v2.15.3\n  chaos hunt --budget 30m --schedules clock --store store/hunt-clock",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			mode := hunt.Mode(schedules)
			switch {
			case mode != hunt.Aimed && mode != hunt.Clock:
				return usageErr("--schedules %q: want aimed or clock", schedules)
			case budget <= 0:
				return usageErr("--budget %s: want a positive duration such as 30m", budget)
			case runTime < 5*time.Second:
				return usageErr("--run-time %s: want at least 5s", runTime)
			}
			for _, v := range versions {
				if !versionRE.MatchString(v) {
					return usageErr("--server-version %q: want vX.Y.Z", v)
				}
			}
			if seed == 0 {
				seed = uint64(time.Now().UnixNano()%(1<<31)) + 1
			}
			if store == "" {
				store = filepath.Join("store", fmt.Sprintf("hunt-%s-s%d", mode, seed))
			}
			ctx, stop := interruptible("finishing the run in progress; the hunt resumes with the same --store")
			defer stop()
			rt, err := openRuntime(ctx, runtime, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			defer rt.cleanup()
			supported := func(f string) bool {
				fs, err := nemesis.Parse(f)
				return err == nil && nemesis.Refuse(fs, rt) == nil
			}
			out := cmd.OutOrStdout()
			st, err := hunt.Run(ctx, hunt.Options{Dir: store, Budget: budget, Mode: mode, Versions: versions, Seed: seed,
				RunTime: runTime, Args: []string{"--runtime", rt.Name()}, Supported: supported, Exec: hunt.ExecChaos,
				Logf: func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }})
			switch {
			case ctx.Err() != nil:
				return &exitError{code: record.ExitInterrupted, err: fmt.Errorf("interrupted; resume with: chaos hunt --store %s --schedules %s --seed %d", store, mode, seed)}
			case err != nil:
				return harnessErr(err)
			}
			fmt.Fprintf(out, "hunt: %d runs, %d anomaly classes found; %s\n", len(st.Runs), len(st.Found), filepath.Join(store, hunt.ReportFile))
			if len(st.Found) > 0 {
				return &exitError{code: record.ExitInvalid}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&budget, "budget", 30*time.Minute, "the campaign's time: no run starts once it is spent")
	fl.StringVar(&schedules, "schedules", string(hunt.Aimed), "aimed (clock and triggered faults) or clock (clock faults only)")
	fl.StringSliceVar(&versions, "server-version", []string{serverbin.DefaultVersion()}, "nats-server releases, taken in turn (vX.Y.Z, comma-separated)")
	fl.StringVar(&store, "store", "", "the campaign's folder (default store/hunt-<schedules>-s<seed>); give it again to resume")
	fl.StringVar(&runtime, "runtime", "auto", "cluster runtime: auto, docker or local")
	fl.DurationVar(&runTime, "run-time", 20*time.Second, "each run's --time-limit")
	fl.Uint64Var(&seed, "seed", 0, "seed of the campaign's draws (0 picks one; it is printed in hunt.md)")
	return cmd
}
