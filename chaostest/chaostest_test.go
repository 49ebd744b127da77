package chaostest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a test that records a Fatalf instead of ending.
type recorder struct {
	*testing.T
	failed string
}

func (r *recorder) Fatalf(format string, args ...any) {
	if r.failed == "" { // the first, where a real test would have ended
		r.failed = fmt.Sprintf(format, args...)
	}
}

// fakeChaos is a chaos binary that stores a run of one valid cell in its
// --store, prints its arguments and a headline, and exits with code.
func fakeChaos(t *testing.T, code int) string {
	bin := filepath.Join(t.TempDir(), "chaos")
	script := fmt.Sprintf(`#!/bin/sh
store=$3
mkdir -p "$store/r1" && ln -sfn r1 "$store/latest"
[ %d = 3 ] || echo '{"run_id":"r1","cells":[{"name":"direct-get-on","verdict":"valid"}]}' > "$store/r1/results.json"
echo "args: $*"
echo "Direct Get on: 3 stale reads"
exit %d
`, code, code)
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestRunPassesOnlyAValidRun: exit 0 passes with the stored result; every
// other exit fails the test in the chaos command's words, with what it
// printed; CHAOS_ARGS reach the command after the test's own flags.
func TestRunPassesOnlyAValidRun(t *testing.T) {
	cases := []struct {
		exit int
		fail string // "" passes
	}{
		{0, ""},
		{1, "anomalies found (exit 1)"},
		{2, "a checker could not decide (exit 2)"},
		{3, "usage error: nothing was started (exit 3)"},
		{4, "harness error (exit 4)"},
		{130, "exit 130"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.exit), func(t *testing.T) {
			t.Setenv("CHAOS_BIN", fakeChaos(t, c.exit))
			t.Setenv("CHAOS_ARGS", "--server-source /src/nats-server")
			t.Setenv("CHAOS_STORE", "")
			r := &recorder{T: t}
			o := Run(r, "--workload", "kv-update", "--seed", "1")
			if c.fail == "" {
				if r.failed != "" || o.Exit != 0 || len(o.Result.Cells) != 1 || o.Result.Cells[0].Name != "direct-get-on" {
					t.Fatalf("failed %q, outcome %+v: want a pass with the stored cell", r.failed, o)
				}
				if !strings.Contains(o.Output, "args: run --store ") || !strings.Contains(o.Output, "--seed 1 --server-source /src/nats-server") {
					t.Fatalf("output %q: want the test's flags, then CHAOS_ARGS", o.Output)
				}
				return
			}
			if !strings.Contains(r.failed, c.fail) || !strings.Contains(r.failed, "3 stale reads") {
				t.Fatalf("failed %q: want %q and the command's output", r.failed, c.fail)
			}
		})
	}
}

// TestRunSaysWhenTheBinaryIsMissing: a CHAOS_BIN that is not there fails
// the test naming it, not with an exit code.
func TestRunSaysWhenTheBinaryIsMissing(t *testing.T) {
	t.Setenv("CHAOS_BIN", filepath.Join(t.TempDir(), "nope"))
	r := &recorder{T: t}
	Run(r, "--seed", "1")
	if !strings.Contains(r.failed, "nope") {
		t.Fatalf("failed %q: want the missing binary named", r.failed)
	}
}
