package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/reports/index"
)

func reportCmd() *cobra.Command {
	var (
		expect      []string
		indexOf     string
		mergeShards bool
		store       string
	)
	cmd := &cobra.Command{
		Use:   "report DIR | report --index STORE | report --merge [--store STORE] DIR...",
		Short: "Rebuild report.html, junit.xml and finding.md of a stored run from its files, a store's index.html, or merge a run's shards",
		Long: `Report reads a run folder (results.json, run.json and each cell's files)
and writes report.html, junit.xml and each cell's finding.md into it again.
It exits with the run's verdict, as run does.

With --index STORE it rebuilds only STORE/index.html, the page of every run
in the store (chaos run rebuilds it after each run), and exits 0.

With --merge it reads the run folders of every shard of one run (chaos run
--shard I/N on N machines; a shard with no cell stored none and may be left
out), joins them into a new run folder under --store, with store/latest
pointing at it, as one machine would have stored the whole run, and
reports that. Folders that are not every shard of one run once each are a
usage error (exit 3).`,
		Example: "  chaos report store/latest\n  chaos report --index store\n  chaos report --merge --store store shard-1/store/latest shard-2/store/latest",
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case indexOf != "" && len(args) > 0:
				return usageErr("--index %s rebuilds a store's index alone: give no run folder (got %s)", indexOf, args[0])
			case indexOf != "":
				return nil
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if indexOf != "" {
				return writeIndex(cmd, indexOf)
			}
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
				defer writeStoreIndex(dir, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			return writeReport(cmd, dir, exps)
		},
	}
	cmd.Flags().StringArrayVar(&expect, "expect", nil, "a known anomaly kept as a positive control, CELLS=ANOMALY (added to those the run recorded)")
	cmd.Flags().StringVar(&indexOf, "index", "", "rebuild only the index.html of this store (the folder holding the runs)")
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

// writeIndex is report --index: a store that is missing, not a folder or a
// run folder is a usage error; failing to write the page, a harness error.
func writeIndex(cmd *cobra.Command, store string) error {
	if fi, err := os.Stat(store); err != nil || !fi.IsDir() {
		return usageErr("--index %s: not a store folder (the folder holding the runs, store by default)", store)
	}
	ix, err := index.Build(store)
	if err != nil {
		return usageErr("--index %s: %v", store, err)
	}
	if err := ix.Write(); err != nil {
		return harnessErr(err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "index: %s (%d runs)\n", filepath.Join(store, index.FileName), len(ix.Rows))
	return nil
}

// writeStoreIndex rebuilds the index.html of the store that holds the run
// folder runDir. A run the index fails to list is still a run: its exit
// code stands, and the failure is only said.
func writeStoreIndex(runDir string, stdout, stderr io.Writer) {
	store := filepath.Dir(filepath.Clean(runDir))
	if _, err := index.Write(store); err != nil {
		fmt.Fprintf(stderr, "chaos: index: %v\n", err)
		return
	}
	fmt.Fprintf(stdout, "index: %s\n", filepath.Join(store, index.FileName))
}
