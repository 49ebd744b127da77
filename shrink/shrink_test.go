package shrink

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

func TestWordsAndArgsOf(t *testing.T) {
	args, err := ArgsOf(`chaos run --direct-get=off --store='/tmp/my store' --nemesis=pause+kill,kill --runs=5 --until-fail=true --shard=2/3 --note='it'\''s' --seed=18`)
	want := []string{"--direct-get=off", "--nemesis=pause+kill,kill", "--note=it's", "--seed=18"}
	if err != nil || strings.Join(args, "|") != strings.Join(want, "|") {
		t.Errorf("ArgsOf: %q, %v; want %q", args, err, want)
	}
	for _, bad := range []string{"chaos hunt --budget=1m", "chaos run --x='open"} {
		if _, err := ArgsOf(bad); err == nil {
			t.Errorf("ArgsOf(%q) took it", bad)
		}
	}
}

func TestMoves(t *testing.T) {
	names := func(args ...string) string {
		var out []string
		for _, m := range Moves(args) {
			out = append(out, m.Name+" => "+strings.Join(m.Args, " "))
		}
		return strings.Join(out, "\n")
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--direct-get=both", "--seed=1"}, "--direct-get on only => --direct-get=on --seed=1\n--direct-get off only => --direct-get=off --seed=1"},
		{[]string{"--server-version=v2.14.9", "--server-version=v2.15.3"},
			"--server-version v2.14.9 only => --server-version=v2.14.9\n--server-version v2.15.3 only => --server-version=v2.15.3"},
		{[]string{"--nemesis=pause+kill,kill", "--time-limit=60s"},
			"--nemesis pause+kill,kill to pause => --nemesis=pause --time-limit=60s\n--nemesis pause+kill,kill to kill => --nemesis=kill --time-limit=60s\n" +
				"--time-limit 1m0s to 30s => --nemesis=pause+kill,kill --time-limit=30s"},
		{[]string{"--nemesis=kill", "--nemesis=stepdown"}, "--nemesis kill only => --nemesis=kill\n--nemesis stepdown only => --nemesis=stepdown"},
		{[]string{"--time-limit=8s", "--clients=10", "--keys=10"}, "--clients 10 to 5, --keys 10 to 5 => --time-limit=8s --clients=5 --keys=5"},
		{[]string{"--clients=4", "--keys=5"}, "--clients 4 to 2, --keys 5 to 2 => --clients=2 --keys=2"},
		{[]string{"--clients=1", "--nemesis=kill", "--time-limit=9s", "--direct-get=off"}, ""},
	}
	for _, tt := range tests {
		if got := names(tt.args...); got != tt.want {
			t.Errorf("Moves(%q):\n got %s\nwant %s", tt.args, got, tt.want)
		}
	}
}

// fakeRuns fails a candidate in the runs fails gives its args, writing the
// results.json a run would.
func fakeRuns(t *testing.T, fails func(args []string) int, log *[]string) Executor {
	n := 0
	return func(_ context.Context, store string, args []string) (string, int, error) {
		n++
		*log = append(*log, strings.Join(args, " "))
		dir := filepath.Join(store, fmt.Sprintf("run%d", n))
		os.MkdirAll(dir, 0o755)
		runs := 3
		f := fails(args[:len(args)-1])
		res := record.Result{Repeats: []record.RepeatSummary{{Cell: "c", Runs: runs, Failed: f, Rate: float64(f) / float64(runs)}}}
		if f > 0 {
			res.Repeats[0].FirstFailure = &record.Failure{Dir: filepath.Join(dir, "c_run-1")}
		}
		b, _ := json.Marshal(res)
		os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644)
		return dir, 0, nil
	}
}

// The search takes the first move that keeps failing, starts over from
// it, and stops when none does: here the anomaly needs kill and 20 s.
func TestSearch(t *testing.T) {
	var log []string
	fails := func(args []string) int {
		a := strings.Join(args, " ")
		switch {
		case strings.Contains(a, "--nemesis=pause "), strings.HasSuffix(a, "--nemesis=pause"), strings.Contains(a, "--time-limit=10s"):
			return 0
		case strings.Contains(a, "--direct-get=on"):
			return 1
		}
		return 3
	}
	o := Options{Args: []string{"--direct-get=both", "--nemesis=pause+kill", "--time-limit=40s", "--seed=18"}, Runs: 3, MinRate: 0.5,
		Attempts: 20, Store: t.TempDir()}
	o.Exec = fakeRuns(t, fails, &log)
	res := Search(context.Background(), o)
	want := "--direct-get=off --nemesis=kill --time-limit=20s --seed=18"
	if got := strings.Join(res.Smallest.Args, " "); got != want || res.Smallest.Rate != 1 || res.Detail != "no smaller move keeps failing" {
		t.Fatalf("smallest %q (rate %.2f, %s), want %q\n%s", got, res.Smallest.Rate, res.Detail, want, strings.Join(log, "\n"))
	}
	if !strings.HasSuffix(res.Smallest.Finding, filepath.Join("c_run-1", "finding.md")) || res.Original.Rate != 1 {
		t.Errorf("finding %q, original %+v", res.Smallest.Finding, res.Original)
	}
	// on (1 of 3) is tried and dropped; off kept; pause dropped, kill kept;
	// 40s to 20s kept; 20s to 10s dropped.
	var kept []string
	for _, a := range res.Attempts {
		if a.Kept {
			kept = append(kept, a.Move)
		}
	}
	if strings.Join(kept, "; ") != "--direct-get off only; --nemesis pause+kill to kill; --time-limit 40s to 20s" || len(res.Attempts) != 6 {
		t.Errorf("kept %q of %d attempts", kept, len(res.Attempts))
	}
	for _, l := range log {
		if !strings.HasSuffix(l, "--runs=3") {
			t.Errorf("a candidate ran without --runs: %s", l)
		}
	}

	// An original below --min-rate is not shrunk; a budget stops the search.
	o.Exec, o.MinRate = fakeRuns(t, func([]string) int { return 1 }, &log), 0.5
	if res := Search(context.Background(), o); len(res.Attempts) != 0 || !strings.Contains(res.Detail, "nothing to shrink") {
		t.Errorf("original below the rate: %+v", res)
	}
	o.Exec, o.Attempts = fakeRuns(t, func([]string) int { return 3 }, &log), 2
	if res := Search(context.Background(), o); len(res.Attempts) != 2 || !strings.Contains(res.Detail, "stopped after 2 attempts") {
		t.Errorf("budget: %d attempts, %s", len(res.Attempts), res.Detail)
	}
}

// With a class, a candidate counts only the runs that show it: pause
// fails every run, but with another anomaly, so kill is kept.
func TestSearchKeepsTheClass(t *testing.T) {
	n := 0
	exec := func(_ context.Context, store string, args []string) (string, int, error) {
		n++
		dir := filepath.Join(store, fmt.Sprintf("run%d", n))
		a := strings.Join(args, " ")
		res := record.Result{}
		for rep := 1; rep <= 3; rep++ {
			check := checker.Result{Name: "stream-integrity", Verdict: checker.Invalid, Anomalies: []checker.Anomaly{{Kind: "lost_write"}}}
			if strings.Contains(a, "--nemesis=pause ") {
				check = checker.Result{Name: "wrong-last-seq", Verdict: checker.Invalid}
			}
			cell := fmt.Sprintf("c_run-%d", rep)
			res.Cells = append(res.Cells, record.CellResult{Cell: record.Cell{Name: cell, Repeat: rep}, Dir: filepath.Join(dir, cell),
				Verdict: record.Invalid, Checks: []checker.Result{check}})
			os.MkdirAll(filepath.Join(dir, cell), 0o755)
		}
		b, _ := json.Marshal(res)
		os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644)
		return dir, 1, nil
	}
	o := Options{Args: []string{"--nemesis=pause+kill", "--seed=18"}, Runs: 3, MinRate: 0.5, Attempts: 5, Store: t.TempDir(),
		Exec: exec, Class: "stream-integrity-lost-write"}
	res := Search(context.Background(), o)
	if got := strings.Join(res.Smallest.Args, " "); got != "--nemesis=kill --seed=18" || res.Smallest.Failed != 3 || res.Smallest.Runs != 3 ||
		res.Attempts[0].Kept || res.Attempts[0].Runs != 3 || res.Attempts[0].Failed != 0 {
		t.Errorf("smallest %q %d/%d; attempts %+v", got, res.Smallest.Failed, res.Smallest.Runs, res.Attempts)
	}
	if !strings.HasSuffix(res.Smallest.Finding, filepath.Join("c_run-1", "finding.md")) {
		t.Errorf("finding %q", res.Smallest.Finding)
	}
}
