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
		expect []string
		store  string
	)
	cmd := &cobra.Command{
		Use:   "report DIR | report --index STORE",
		Short: "Rebuild report.html, junit.xml and finding.md of a stored run from its files, or a store's index.html",
		Long: `Report reads a run folder (results.json, run.json and each cell's files)
and writes report.html, junit.xml and each cell's finding.md into it again.
It exits with the run's verdict, as run does.

With --index STORE it rebuilds only STORE/index.html, the page of every run
in the store (chaos run rebuilds it after each run), and exits 0.`,
		Example: "  chaos report store/latest\n  chaos report --index store",
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case store != "" && len(args) > 0:
				return usageErr("--index %s rebuilds a store's index alone: give no run folder (got %s)", store, args[0])
			case store != "":
				return nil
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if store != "" {
				return writeIndex(cmd, store)
			}
			exps, err := record.ParseExpects(expect)
			if err != nil {
				return usageErr("%v", err)
			}
			byCell, ferr := findings.WriteRun(args[0])
			if ferr != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "findings: %v\n", ferr)
			}
			r, err := reports.WriteWith(args[0], reports.Options{Expect: exps})
			if err != nil {
				return harnessErr(err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintln(out, reports.Headline(r.Result, r.Expect...))
			fmt.Fprintf(out, "report: %s\njunit:  %s\n", filepath.Join(args[0], reports.HTMLFile), filepath.Join(args[0], reports.JUnitFile))
			for _, cell := range slices.Sorted(maps.Keys(byCell)) {
				if n := len(byCell[cell]); n > 0 {
					fmt.Fprintf(out, "finding: %s (%d)\n", filepath.Join(args[0], cell, findings.FileName), n)
				}
			}
			return &exitError{code: record.ExitCode(r.Result, r.Expect)}
		},
	}
	cmd.Flags().StringArrayVar(&expect, "expect", nil, "a known anomaly kept as a positive control, CELLS=ANOMALY (added to those the run recorded)")
	cmd.Flags().StringVar(&store, "index", "", "rebuild only the index.html of this store (the folder holding the runs)")
	return cmd
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
