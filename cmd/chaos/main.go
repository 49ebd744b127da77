// Command chaos is the jetstream-chaos toolkit: it starts a JetStream
// cluster, drives a workload while faults are injected, records the history,
// checks it and writes the results. Run `chaos run --workload kv-update`.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/all"
)

// exitError carries an exit code up to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageErr(format string, args ...any) error {
	return &exitError{record.ExitUsage, fmt.Errorf(format, args...)}
}

func harnessErr(err error) error { return &exitError{record.ExitHarness, err} }

func main() {
	root := &cobra.Command{
		Use:           "chaos",
		Short:         "Jepsen-style chaos testing for NATS JetStream",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%v", err) })
	root.AddCommand(runCmd(os.Args[1:]), checkCmd(), reportCmd(), clusterCmd(), versionCmd(), huntCmd(), shrinkCmd(), serveCmd(), releasesCmd())
	err := root.Execute()
	if err == nil {
		return
	}
	var ee *exitError
	code := record.ExitUsage // cobra's own errors (unknown command, args) are usage errors
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			os.Exit(code)
		}
	}
	fmt.Fprintf(os.Stderr, "chaos: %v\n", err)
	os.Exit(code)
}
