package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
)

func reportCmd() *cobra.Command {
	var expect []string
	var mergeShards bool
	var store string
	cmd := &cobra.Command{
		Use:   "report DIR | report --merge [--store STORE] DIR...",
		Short: "Rebuild report.html, junit.xml and finding.md of a stored run from its files, or merge a run's shards",
		Long: `Report reads a run folder (results.json, run.json and each cell's files)
and writes report.html, junit.xml and each cell's finding.md into it again.
It exits with the run's verdict, as run does.

With --merge it reads the run folders of every shard of one run (chaos run
--shard I/N on N machines; a shard with no cell stored none and may be left
out), joins them into a new run folder under --store, with store/latest
pointing at it, as one machine would have stored the whole run, and
reports that. Folders that are not every shard of one run once each are a
usage error (exit 3).`,
		Example: "  chaos report store/latest\n  chaos report --merge --store store shard-1/store/latest shard-2/store/latest",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			exps, err := record.ParseExpects(expect)
			if err != nil {
				return usageErr("%v", err)
			}
			if !mergeShards && len(args) != 1 {
				return usageErr("report takes one run folder (%d given); --merge joins a run's shards", len(args))
			}
			if !mergeShards && cmd.Flags().Changed("store") {
				return usageErr("--store goes with --merge: report writes into the run folder it reads")
			}
			dir := args[0]
			if mergeShards {
				if dir, err = merge(cmd, store, args); err != nil {
					return err
				}
			}
			return writeReport(cmd, dir, exps)
		},
	}
	cmd.Flags().StringArrayVar(&expect, "expect", nil, "a known anomaly kept as a positive control, CELLS=ANOMALY (added to those the run recorded)")
	cmd.Flags().BoolVar(&mergeShards, "merge", false, "join the run folders of every shard of one run (chaos run --shard I/N) into one new run, and report it")
	cmd.Flags().StringVar(&store, "store", "store", "with --merge: the folder the merged run is stored in")
	return cmd
}

// writeReport writes the run folder dir's report.html, junit.xml and
// finding.md files, says where, and exits with the run's verdict.
func writeReport(cmd *cobra.Command, dir string, exps []record.Expectation) error {
	byCell, ferr := findings.WriteRun(dir)
	if ferr != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "findings: %v\n", ferr)
	}
	r, err := reports.WriteWith(dir, reports.Options{Expect: exps})
	if err != nil {
		return harnessErr(err)
	}
	out := cmd.OutOrStdout()
	fmt.Fprintln(out, reports.Headline(r.Result, r.Expect...))
	fmt.Fprintf(out, "report: %s\njunit:  %s\n", filepath.Join(dir, reports.HTMLFile), filepath.Join(dir, reports.JUnitFile))
	for _, cell := range slices.Sorted(maps.Keys(byCell)) {
		if n := len(byCell[cell]); n > 0 {
			fmt.Fprintf(out, "finding: %s (%d)\n", filepath.Join(dir, cell, findings.FileName), n)
		}
	}
	return &exitError{code: record.ExitCode(r.Result, r.Expect)}
}
