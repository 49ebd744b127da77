// Package chaostest runs jetstream-chaos from a go test, so that a bug it
// found stays fixed the way etcd keeps its reproduced issues
// (tests/robustness): a test holds a finding's rerun flags, and fails
// with the run's verdict while the anomaly shows.
//
// It runs the `chaos run` command itself, not a copy of its pipeline: the
// same flags, the same cluster (one it starts, or one it is given with
// --runtime external and the cluster's addresses), the same checks, the
// same store, report.html and finding.md.
//
//	func TestStaleReadsStayFixed(t *testing.T) {
//		chaostest.Run(t, "--workload", "kv-update", "--direct-get", "off", "--nemesis", "partition-leader", "--seed", "7")
//	}
//
// Environment:
//   - CHAOS_BIN: the chaos binary to run. Unset, Run builds it from this
//     module (go build), which works inside it; from another module
//     (a nats-server checkout), install it first:
//     go install github.com/jetstream-chaos/jetstream-chaos/cmd/chaos@latest
//     and set CHAOS_BIN=$(go env GOPATH)/bin/chaos.
//   - CHAOS_ARGS: flags added to every run, split on spaces: point the
//     tests at your own build (--server-source /path/to/nats-server) or at
//     a cluster you run (--runtime external --server ... --monitor ...).
//   - CHAOS_STORE: where runs are stored; unset, the test's temporary
//     folder, removed when the test ends.
package chaostest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Package is the chaos command's import path, which Run builds when
// CHAOS_BIN is not set.
const Package = "github.com/jetstream-chaos/jetstream-chaos/cmd/chaos"

// Outcome is one run: its folder, its exit code (record.ExitValid and the
// others) and what it stored.
type Outcome struct {
	Dir    string
	Exit   int
	Result record.Result
	// Output is what the command printed: progress, verdicts, headline.
	Output string
}

// Run runs `chaos run` with args (flags as the command line takes them;
// CHAOS_ARGS adds more) and returns its outcome once it ends. The test
// fails unless the run's verdict passes (exit 0): with the run's headline,
// each finding.md and the rerun command for an anomaly (exit 1), and with
// what could not be decided (2), the usage error (3) or the harness error
// (4) otherwise. A known anomaly kept on purpose passes through --expect,
// as on the command line: --expect direct-get-on=stale-reads.
func Run(t testing.TB, args ...string) Outcome {
	t.Helper()
	o, err := run(t, args)
	if err != nil {
		t.Fatalf("chaostest: %v", err)
	}
	if o.Exit != record.ExitValid {
		t.Fatalf("chaos run %s: %s\n%s", strings.Join(args, " "), exitWords(o.Exit), tail(o.Output, 25))
	}
	return o
}

func run(t testing.TB, args []string) (Outcome, error) {
	bin, err := binary(t)
	if err != nil {
		return Outcome{}, err
	}
	store := os.Getenv("CHAOS_STORE")
	if store == "" {
		store = t.TempDir()
	}
	full := append([]string{"run", "--store", store}, args...)
	full = append(full, strings.Fields(os.Getenv("CHAOS_ARGS"))...)
	ctx := context.Background()
	if dl, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if d, ok := dl.Deadline(); ok { // go test -timeout: end the run, and its cluster, first
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, d.Add(-time.Minute))
			defer cancel()
		}
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	o := Outcome{Exit: cmd.ProcessState.ExitCode(), Output: out.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return o, fmt.Errorf("the run was stopped a minute before go test's -timeout (give go test a longer one)\n%s", tail(o.Output, 25))
	case err != nil && !errors.As(err, &exit):
		return o, fmt.Errorf("run %s: %w", bin, err)
	}
	o.Dir = filepath.Join(store, "latest")
	if o.Exit == record.ExitUsage {
		return o, nil // nothing was started, so nothing is stored
	}
	if o.Result, err = record.ReadResult(o.Dir); err != nil && o.Exit != record.ExitHarness {
		return o, fmt.Errorf("chaos run exited %d but its results cannot be read: %w\n%s", o.Exit, err, tail(o.Output, 25))
	}
	t.Logf("chaos run stored its run in %s", o.Dir)
	return o, nil
}

// binary is CHAOS_BIN, or the chaos command built from this module into
// the test's temporary folder (go build's cache makes a rebuild a link).
func binary(t testing.TB) (string, error) {
	if b := os.Getenv("CHAOS_BIN"); b != "" {
		return b, nil
	}
	bin := filepath.Join(t.TempDir(), "chaos")
	cmd := exec.Command("go", "build", "-o", bin, Package)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s (set CHAOS_BIN to a chaos binary from outside its module): %v\n%s", Package, err, out)
	}
	return bin, nil
}

// exitWords says what a chaos exit code means (README, "Exit codes").
func exitWords(code int) string {
	switch code {
	case record.ExitInvalid:
		return "anomalies found (exit 1)"
	case record.ExitUnknown:
		return "a checker could not decide (exit 2)"
	case record.ExitUsage:
		return "usage error: nothing was started (exit 3)"
	case record.ExitHarness:
		return "harness error (exit 4)"
	}
	return fmt.Sprintf("exit %d", code)
}

// tail is the last n lines of s, where the headline and findings are.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
