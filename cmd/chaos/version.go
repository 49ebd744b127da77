package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
)

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the toolkit's version and the pinned nats-server and nats.go versions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			natsGo := "unknown"
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, d := range bi.Deps {
					if d.Path == "github.com/nats-io/nats.go" {
						natsGo = d.Version
					}
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "jetstream-chaos (nats-server %s by default, nats.go %s)\n", serverbin.DefaultVersion(), natsGo)
			return nil
		},
	}
}
