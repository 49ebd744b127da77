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
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Rebuild report.html, junit.xml and finding.md of a stored run from its files",
		Long: `Report reads a run folder (results.json, run.json and each cell's files)
and writes report.html, junit.xml and each cell's finding.md into it again.
It exits with the run's verdict, as run does.`,
		Example: "  chaos report store/latest",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
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
	return cmd
}
