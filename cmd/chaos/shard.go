package main

import (
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/run"
)

// errNothingToRun says a shard's slice of the matrix is empty (more
// shards than cells and runs): it runs and stores nothing and exits 0, so
// that a fixed CI matrix or Kubernetes Job of N shards stays green on a
// small matrix; `chaos report --merge` does not ask for it.
var errNothingToRun = errors.New("nothing to run")

func (f *runFlags) bindShard(fl *pflag.FlagSet) {
	fl.StringVar(&f.shard, "shard", "", "run the I-th of N slices of the cells and runs (I/N, e.g. 2/4), each with its seed of the whole run; needs --seed; chaos report --merge joins the N run folders")
}

// shardOf reads --shard. Every shard must derive the seeds of one run, so
// --seed must be given: each machine would pick its own.
func (f *runFlags) shardOf(cmd *cobra.Command) (*record.Shard, error) {
	if !cmd.Flags().Changed("shard") {
		return nil, nil
	}
	s, err := record.ParseShard(f.shard)
	if err != nil {
		return nil, err
	}
	if f.seed == 0 {
		return nil, fmt.Errorf("--shard %s needs --seed: every shard must run with the seed of one run (e.g. --seed $GITHUB_RUN_ID)", s)
	}
	return &s, nil
}

// nothingToRun is errNothingToRun for a shard with no cell, said on the
// terminal.
func nothingToRun(spec record.Spec) error {
	if spec.Shard == nil || len(spec.Cells()) > 0 {
		return nil
	}
	fmt.Printf("shard %s: none of the matrix's %d cells and runs is this shard's; nothing to run\n", spec.Shard, len(spec.AllCells()))
	return errNothingToRun
}

// versionsToBuild is the server versions of the cells this run runs, in
// order: a shard builds only its own.
func versionsToBuild(spec record.Spec) []string {
	if spec.Shard == nil {
		return spec.ServerVersions
	}
	var vs []string
	for _, c := range spec.Cells() {
		if !slices.Contains(vs, c.ServerVersion) {
			vs = append(vs, c.ServerVersion)
		}
	}
	return vs
}

// merge joins the shards' run folders (run.Merge) into a new run under
// store and says where; the caller reports it as any run.
func merge(cmd *cobra.Command, store string, dirs []string) (string, error) {
	res, err := run.Merge(store, dirs)
	switch {
	case errors.Is(err, run.ErrNotShards):
		return "", usageErr("%v", err)
	case err != nil:
		return "", harnessErr(err)
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "merged %d shard folders into %s: %d cells and runs\n", len(dirs), res.Dir, len(res.Cells))
	if len(res.Repeats) > 0 {
		run.PrintRepeats(out, res.Repeats)
	}
	return res.Dir, nil
}
