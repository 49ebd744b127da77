package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
	"github.com/jetstream-chaos/jetstream-chaos/reports/releases"
)

func releasesCmd() *cobra.Command {
	var out, ledger string
	cmd := &cobra.Command{
		Use:   "releases [STORE...]",
		Short: "Rebuild the release matrix (docs/releases.md) from its ledger and the runs of each STORE",
		Long: `Releases adds a row per cell run of every run folder of each STORE to the
ledger (--ledger, one JSON row a line; a row already there is replaced by
the store's), then writes the release matrix (--out) from the ledger alone:
every anomaly class against every release run, each scenario's rate per
release, its command, seeds, dates, newest finding and bisections. The
finding the page names for each class and scenario is copied beside it
(findings/), since the stores are not kept with the page. With no
STORE it renders the ledger as it is. A STORE that is not a store folder,
or a ledger that does not decode, is a usage error (exit 3).`,
		Example: "  chaos releases store\n  make releases STORE=store",
		RunE: func(cmd *cobra.Command, stores []string) error {
			before, err := releases.ReadLedger(ledger)
			if err != nil {
				return usageErr("--ledger %v", err)
			}
			now, notes, err := releases.Collect(stores)
			if err != nil {
				return usageErr("releases: %v", err)
			}
			for _, n := range notes {
				fmt.Fprintf(cmd.ErrOrStderr(), "releases: %s\n", n)
			}
			rows, err := releases.KeepFindings(releases.Merge(before, now), filepath.Dir(out))
			if err != nil {
				return harnessErr(err)
			}
			if err := releases.WriteLedger(ledger, rows); err != nil {
				return harnessErr(err)
			}
			if err := atomicfile.Write(out, releases.Render(rows)); err != nil {
				return harnessErr(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ledger: %s (%d runs of a cell, %d read from %d stores)\nmatrix: %s\n",
				filepath.Clean(ledger), len(rows), len(now), len(stores), filepath.Clean(out))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "docs/releases.md", "the page to write")
	cmd.Flags().StringVar(&ledger, "ledger", "docs/releases.jsonl", "the ledger to read, add the stores' rows to, and write back")
	return cmd
}
