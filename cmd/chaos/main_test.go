package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
	"github.com/jetstream-chaos/jetstream-chaos/shrink"
)

var chaosBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "chaos-bin-")
	if err != nil {
		panic(err)
	}
	chaosBin = filepath.Join(dir, "chaos")
	if out, err := exec.Command("go", "build", "-o", chaosBin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// chaos runs the binary in a temp dir and returns its exit code and stderr.
func chaos(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	return chaosEnv(t, dir, nil, args...)
}

// chaosEnv is chaos with env added to this process's environment, for the
// chaos process alone: a test that runs in parallel cannot t.Setenv.
func chaosEnv(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(chaosBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

func TestBadInputIsOneLineUsageErrorAndStartsNothing(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--bogus"}, "unknown flag"},
		{[]string{"run", "--workload", "nope"}, `--workload "nope"`},
		{[]string{"run", "--direct-get", "maybe"}, "--direct-get"},
		{[]string{"run", "--nemesis", "earthquake"}, `unknown nemesis "earthquake"`},
		{[]string{"run", "--runtime", "vm"}, `--runtime "vm"`},
		{[]string{"run", "--server-version", "2.10.7"}, "vX.Y.Z"},
		{[]string{"run", "--keys", "2", "--clients", "5"}, "--keys >= --clients"},
		{[]string{"run", "--time-limit", "10ms"}, "--time-limit"},
		{[]string{"run", "--runtime", "local", "--nemesis", "partition-one"}, "refused"},
		{[]string{"check", "nowhere"}, "no history.jsonl"},
		{[]string{"run", "--runs", "0"}, "--runs 0"},
		{[]string{"run", "--until-fail"}, "--until-fail"},
		{[]string{"run", "--bisect"}, "--bisect needs a release range"},
		{[]string{"run", "--workload", "catchup", "--time-limit", "10s"}, "--time-limit does not apply to --workload catchup"},
		{[]string{"run", "--workload", "queue", "--direct-get", "both"}, "--direct-get both does not apply to --workload queue"},
		{[]string{"run", "--backlog", "1GiB"}, "--backlog does not apply to --workload kv-update (it is a catchup flag)"},
		{[]string{"run", "--keys", "0"}, "--keys must be at least 1"},
		{[]string{"run", "--clients", "0"}, "--clients must be at least 1"},
		{[]string{"run", "--op-timeout", "0s"}, "--op-timeout"},
		{[]string{"run", "--recovery-timeout", "0s"}, "--recovery-timeout"},
		{[]string{"run", "--check-timeout", "0s"}, "--check-timeout"},
		{[]string{"run", "--workload", "catchup", "--backlog", "-1GiB"}, "is not a size"},
		{[]string{"run", "--workload", "catchup", "--max-memory-slope", "-1"}, "--max-memory-slope"},
		{[]string{"run", "--workload", "catchup", "--publishers", "0"}, "--publishers must be 1..64"},
		{[]string{"run", "--workload", "catchup", "--backlog", "0"}, "--backlog 0B is smaller than one --payload"},
		{[]string{"run", "--workload", "batch", "--batch-size", "0"}, "--batch-size must be 1..1000"},
		{[]string{"run", "--workload", "batch", "--batch-size", "10,1001"}, "--batch-size must be 1..1000 (the server's most in one batch), got 1001"},
		{[]string{"run", "--workload", "batch", "--batch-size", "ten"}, `--batch-size "ten"`},
		{[]string{"run", "--workload", "batch", "--subjects", "0"}, "--subjects must be at least 1"},
		{[]string{"run", "--workload", "batch", "--wrong-last-seq", "60", "--duplicate-id", "50"}, "together at most 100"},
		{[]string{"run", "--workload", "batch", "--plain", "-1"}, "--plain are in a hundred: each 0 or more"},
		{[]string{"run", "--workload", "batch", "--plain", "90", "--wrong-last-seq", "20"}, "together at most 100, got 20, 2, 5 and 90"},
		{[]string{"run", "--workload", "batch", "--server-version", "v2.11.8"},
			"--workload batch needs atomic batch publish (ADR-50), which came in nats-server v2.12.0; --server-version v2.11.8 is older"},
		{[]string{"run", "--workload", "batch", "--bisect", "--server-version", "v2.11.0..v2.15.3"},
			"--workload batch needs atomic batch publish (ADR-50), which came in nats-server v2.12.0; --server-version v2.11.0..v2.15.3 starts before it: start the range at v2.12.0"},
		{[]string{"run", "--workload", "counter", "--counters", "0"}, "--counters must be at least 1"},
		{[]string{"run", "--workload", "sources", "--origins", "0"}, "--origins must be 1..16, got 0"},
		{[]string{"run", "--workload", "sources", "--server-version", "v2.9.25"},
			"--workload sources needs subject transforms on sources, which came in nats-server v2.10.0; --server-version v2.9.25 is older"},
		{[]string{"run", "--workload", "sources", "--copy-bound", "0s"}, "--copy-bound must be above 0"},
		{[]string{"run", "--workload", "sources", "--fault-target", "mirror", "--origin-retention", "limits,workqueue"}, "--origin-retention workqueue has no mirror"},
		{[]string{"run", "--workload", "sources", "--fault-target", "leader"}, "--fault-target \"leader\": want one of"},
		{[]string{"run", "--workload", "sources", "--transform", "maybe"}, "--transform \"maybe\": want on or off"},
		{[]string{"run", "--workload", "sources", "--origin-retention", "interest"}, "--origin-retention \"interest\": want limits or workqueue"},
		{[]string{"run", "--workload", "counter", "--deltas", "up"}, `--deltas "up": want positive or mixed`},
		{[]string{"run", "--workload", "counter", "--server-version", "v2.11.8"},
			"--workload counter needs distributed counters (ADR-49), which came in nats-server v2.12.0; --server-version v2.11.8 is older"},
		{[]string{"run", "--key-ttl", "500ms"}, "--key-ttl 500ms is below the server's 1s minimum"},
		{[]string{"run", "--limit-marker-ttl", "1s"}, "--limit-marker-ttl needs --key-ttl"},
		{[]string{"run", "--key-ttl", "5s", "--server-version", "v2.10.27"},
			"--workload kv-update needs per-key TTLs (ADR-43, --key-ttl), which came in nats-server v2.11.0; --server-version v2.10.27 is older"},
		{[]string{"run", "--workload", "schedule", "--schedule-period", "0s"}, "--schedule-period 0s is below the server's minimum of 1s"},
		{[]string{"run", "--workload", "schedule", "--schedule-period", "1500ms"}, "--schedule-period 1.5s is not whole seconds"},
		{[]string{"run", "--workload", "schedule", "--fire-ahead", "500ms"}, "--fire-ahead 500ms is below 1s"},
		{[]string{"run", "--nemesis", "kill@due-1s"}, "--nemesis kill@due-1s: --workload kv-update has nothing due on the clock to aim at here"},
		{[]string{"run", "--nemesis", "kill@due-soon", "--key-ttl", "3s"}, "before a due time comes -DELAY"},
		{[]string{"run", "--workload", "schedule", "--fire-bound", "0s"}, "--fire-bound must be positive"},
		{[]string{"run", "--workload", "schedule", "--fire-grace", "1s"}, "--fire-grace 1s is below --fire-bound 5s"},
		{[]string{"run", "--workload", "schedule", "--schedule-stream", "interest"}, `--schedule-stream "interest": want limits or workqueue`},
		{[]string{"run", "--workload", "schedule", "--clients", "0", "--repeating", "0"}, "schedule nothing"},
		{[]string{"run", "--workload", "schedule", "--server-version", "v2.12.9"},
			"--workload schedule needs repeating message schedules (ADR-51, @every), which came in nats-server v2.14.0; --server-version v2.12.9 is older"},
		{[]string{"run", "--workload", "schedule", "--repeating", "0", "--server-version", "v2.11.8"},
			"--workload schedule needs message schedules (ADR-51, @at), which came in nats-server v2.12.0; --server-version v2.11.8 is older"},
		{[]string{"run", "--server-source", "/nonexistent"}, "--server-source /nonexistent: no go.mod: want a nats-server checkout"},
		{[]string{"run", "--server-bin", "/nonexistent"}, "--server-bin /nonexistent: not a Go binary"},
		{[]string{"run", "--runtime", "external", "--server-source", "."}, "--server-source and --server-bin do not apply to --runtime external"},
		{[]string{"run", "--commits", "a..b", "--server-source", "."}, "--commits a..b goes with --bisect and exactly one --server-source"},
		{[]string{"run", "--bisect", "--commits", "a..b", "--server-source", "/nonexistent"}, "--server-source /nonexistent: no go.mod"},
		{[]string{"report", "--index", "/nonexistent"}, "--index /nonexistent: not a store folder"},
		{[]string{"report", "--index", "/nonexistent", "store/latest"}, "give no run folder (got store/latest)"},
		{[]string{"report"}, "requires at least 1 arg(s), only received 0"},
		{[]string{"shrink", "/nonexistent"}, "/nonexistent: "},
		{[]string{"shrink", "x", "--runs", "0"}, "--runs 0: want 1 or more"},
		{[]string{"shrink", "x", "--min-rate", "1.5"}, "--min-rate 1.5"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"cluster", "up", "--password", "pw"}, "client authentication needs both a user and a password"},
		{[]string{"cluster", "up", "--detach", "--user", "chaos-sys", "--password", "pw"}, `client user "chaos-sys" is the system account's`},
		{[]string{"hunt", "--schedules", "maybe"}, `--schedules "maybe"`},
		{[]string{"hunt", "--budget", "0s"}, "--budget 0s"},
		{[]string{"hunt", "--run-time", "1s"}, "--run-time 1s"},
		{[]string{"hunt", "--server-version", "2.15"}, `--server-version "2.15"`},
		{[]string{"run", "--nemesis", "kill@earthquake"}, "want an event"},
		{[]string{"run", "--nemesis", "partition-halves:leader"}, "only faults that hit one node take a role"},
		{[]string{"run", "--shard", "0/2", "--seed", "1"}, "--shard 0/2: want 1 <= I <= N"},
		{[]string{"run", "--shard", "3/2", "--seed", "1"}, "--shard 3/2: want 1 <= I <= N"},
		{[]string{"run", "--shard", "a/b", "--seed", "1"}, `--shard "a/b": want I/N`},
		{[]string{"run", "--shard", "1/2"}, "--shard 1/2 needs --seed"},
		{[]string{"run", "--shard", "1/2", "--seed", "1", "--bisect", "--server-version", "v2.14.5..v2.15.3"}, "--shard does not go with --bisect"},
		{[]string{"run", "--shard", "1/2", "--seed", "1", "--runs", "3", "--until-fail"}, "--shard does not go with --until-fail"},
		{[]string{"report", "--merge", "nowhere"}, "nowhere holds no results.json: not a finished run"},
		{[]string{"report", "a", "b"}, "report takes one run folder (2 given)"},
		{[]string{"report", "--store", "x", "y"}, "--store goes with --merge"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			code, _, stderr := chaos(t, dir, c.args...)
			if code != record.ExitUsage {
				t.Errorf("exit %d, want %d (stderr %q)", code, record.ExitUsage, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "chaos: ") || !strings.Contains(lines[0], c.want) {
				t.Errorf("stderr %q: want one line naming %q", stderr, c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "store")); err == nil {
				t.Errorf("a store was created for bad input")
			}
		})
	}
}

func TestIntegrationUnknownServerVersionNamesIt(t *testing.T) {
	testenv.Require(t, testenv.ModuleProxy("github.com/nats-io/nats-server/v2"))
	dir := t.TempDir()
	code, _, stderr := chaos(t, dir, "run", "--runtime", "local", "--server-version", "v2.99.99", "--time-limit", "1s", "--direct-get", "off")
	if code != record.ExitUsage {
		t.Fatalf("exit %d, want %d; stderr %q", code, record.ExitUsage, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(stderr, "v2.99.99") {
		t.Fatalf("want one line naming the version, got %q", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "store")); err == nil {
		t.Fatalf("a store was created although nothing should start")
	}
}

func TestDockerRuntimeWithoutDaemonSaysWhatToTry(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(chaosBin, "run", "--runtime", "docker", "--time-limit", "1s")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DOCKER_HOST=unix://"+filepath.Join(dir, "no-docker.sock"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != record.ExitHarness {
		t.Fatalf("err %v, want exit %d; stderr %q", err, record.ExitHarness, stderr.String())
	}
	if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "--runtime local") {
		t.Fatalf("want one line suggesting --runtime local, got %q", stderr.String())
	}
}

// The search in words names the anomaly it counted.
func TestShrinkWords(t *testing.T) {
	a := shrink.Attempt{Args: []string{"--nemesis=kill", "--store=/x y"}, Runs: 2, Failed: 1}
	got := shrinkWords(shrink.Result{Class: "lost-stream-head", Original: a, Smallest: a, Detail: "no smaller move keeps failing",
		Attempts: []shrink.Attempt{{Move: "--time-limit 15s to 7.5s", Runs: 2}}})
	for _, w := range []string{"original: 1 of 2 runs showed lost-stream-head: chaos run --nemesis=kill --store='/x y'",
		"dropped --time-limit 15s to 7.5s: 0 of 2 runs showed lost-stream-head", "smallest: 1 of 2 runs showed lost-stream-head"} {
		if !strings.Contains(got, w) {
			t.Errorf("lacks %q:\n%s", w, got)
		}
	}
}

// A run with a cell that never ran (its cluster did not start) is still
// checked cell by cell: that cell is reported as an error with its
// stored reason, not a failure of the whole check.
func TestCheckRunWithACellThatNeverRan(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "run")
	if err := os.MkdirAll(filepath.Join(run, "broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, record.SpecFile), []byte(`{"workload":"sources"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	res := `{"error":"start cluster: cluster not ready after 1m30s\nlast lines of n1's log: ..."}`
	if err := os.WriteFile(filepath.Join(run, "broken", record.ResultFile), []byte(res), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := chaos(t, root, "check", run)
	if code != record.Error.ExitCode() || !strings.Contains(stdout, "error (not judged: the cell never ran: start cluster: cluster not ready after 1m30s)") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

// TestCheckKeepsTheRunsExpectations: chaos check judges a run as the run
// did, its stale reads under Direct Get excused by an --expect (the run's
// own, or one given), and an --expect that matches no cell fails.
func TestCheckKeepsTheRunsExpectations(t *testing.T) {
	run := reportstest.UnpackKVRun(t)
	cases := []struct {
		expect []string
		exit   int
		want   string
	}{
		{nil, record.ExitInvalid, "stale-read"},
		{[]string{"--expect", "direct-get-on=stale-reads"}, record.ExitValid, "valid under --expect"},
		{[]string{"--expect", "direct-get-on=stale-reads", "--expect", "nope=stale-reads"}, record.Error.ExitCode(), "--expect nope=stale-reads matched no cell checked"},
		{[]string{"--expect", "direct-get-on=warp-drive"}, record.ExitUsage, ""},
	}
	for _, c := range cases {
		code, stdout, stderr := chaos(t, t.TempDir(), append([]string{"check", run}, c.expect...)...)
		if code != c.exit || !strings.Contains(stdout, c.want) {
			t.Errorf("%v: exit %d, want %d with %q\nstdout: %s\nstderr: %s", c.expect, code, c.exit, c.want, stdout, stderr)
		}
	}
}
