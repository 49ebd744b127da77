package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// shardFake is a workload whose cells never start a cluster (the tests
// run them with fakeCell) and whose check across cells counts the cells
// it was given, so a merge that kept a shard's own count shows.
type shardFake struct{}

type shardFakeSettings struct {
	Size int `json:"size"`
}

func init() { workloads.Register(shardFake{}) }

func (shardFake) Name() string { return "shard-fake" }
func (shardFake) Doc() string  { return "a test workload that never starts" }
func (shardFake) Flags(*pflag.FlagSet) workloads.Expander {
	return func(func(string) bool) ([]workloads.Settings, error) { return nil, nil }
}
func (shardFake) Decode(raw json.RawMessage) (workloads.Settings, error) {
	var s shardFakeSettings
	return s, json.Unmarshal(raw, &s)
}
func (shardFake) Check(string, checker.Options) ([]checker.Result, error) { return nil, nil }
func (shardFake) CheckRun(dirs []string) ([]checker.Result, error) {
	return []checker.Result{{Name: "across", Verdict: checker.Valid, Counts: map[string]int{"cells": len(dirs)},
		Summary: fmt.Sprintf("%d cells", len(dirs))}}, nil
}

func (s shardFakeSettings) Tags() []record.Tag {
	return []record.Tag{{Name: "size", Value: strconv.Itoa(s.Size)}}
}
func (shardFakeSettings) Validate(int) error { return nil }
func (shardFakeSettings) Plan(base cluster.Config) workloads.Plan {
	return workloads.Plan{Cluster: base, Timed: true}
}
func (s shardFakeSettings) Named(string) workloads.Settings { return s }
func (shardFakeSettings) Setup(context.Context, *workloads.Env) (workloads.Instance, error) {
	return nil, errors.New("never set up")
}

type fakeRuntime struct{}

func (fakeRuntime) Name() string                      { return "fake" }
func (fakeRuntime) Supports(cluster.Capability) error { return nil }
func (fakeRuntime) Start(context.Context, cluster.Config) (cluster.Cluster, error) {
	return nil, errors.New("fake runtime starts nothing")
}

// fakeCell stands in for a cell: its verdict follows from its name and
// seed alone (verdict), and it stores its seed, so a shard that ran a
// cell with another seed, or another cell, shows in the merge.
func fakeCell(verdict func(name string, seed uint64) record.Verdict) func(context.Context, record.Cell, string) record.CellResult {
	return func(_ context.Context, c record.Cell, dir string) record.CellResult {
		_ = os.WriteFile(filepath.Join(dir, "seed.txt"), []byte(strconv.FormatUint(c.Seed, 10)), 0o644)
		v := verdict(c.Base, c.Seed)
		cr := record.CellResult{Cell: c, Workload: "shard-fake", Label: c.Label(), Dir: dir, Runtime: "fake", Verdict: v}
		cr.Cluster.Dir = dir
		switch v {
		case record.Error:
			cr.Error = "fake harness error"
		default:
			cr.Checks = []checker.Result{{Name: "fake", Verdict: checker.Verdict(v), Summary: string(v)}}
		}
		return cr
	}
}

// mixed gives every verdict, by a hash of the cell and its seed.
func mixed(name string, seed uint64) record.Verdict {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%d", name, seed)
	return []record.Verdict{record.Valid, record.Invalid, record.Valid, record.Unknown, record.Error}[h.Sum32()%5]
}

func allValid(string, uint64) record.Verdict { return record.Valid }

// shardSpec is a shard-fake matrix: versions x nemeses x two sizes x
// Direct Get, --runs times.
func shardSpec(t *testing.T, versions, nemeses int, runs int) record.Spec {
	t.Helper()
	s := record.Spec{Workload: "shard-fake", DirectGet: []bool{true, false}, Seed: 7, Runs: runs,
		Command: fmt.Sprintf("chaos run --runs=%d --workload=shard-fake --seed=7", runs)}
	for i := range versions {
		s.ServerVersions = append(s.ServerVersions, fmt.Sprintf("v2.%d.0", 10+i))
	}
	s.Nemeses = []string{"none", "kill", "partition-leader"}[:nemeses]
	if err := SetSettings(&s, []workloads.Settings{shardFakeSettings{Size: 1}, shardFakeSettings{Size: 2}}); err != nil {
		t.Fatal(err)
	}
	return s
}

// asShard is spec as `chaos run --shard i/n` stores it.
func asShard(spec record.Spec, i, n int) record.Spec {
	spec.Shard = &record.Shard{Index: i, Count: n}
	spec.Command = strings.Replace(spec.Command, " --seed=", fmt.Sprintf(" --shard=%d/%d --seed=", i, n), 1)
	return spec
}

// runShards runs every shard of spec that has a unit, each in its own
// store as on its own machine, and returns their run folders.
func runShards(t *testing.T, spec record.Spec, n int, verdict func(string, uint64) record.Verdict) []string {
	t.Helper()
	var dirs []string
	for i := 1; i <= n; i++ {
		s := asShard(spec, i, n)
		s.Store = filepath.Join(t.TempDir(), "store")
		if len(s.Cells()) == 0 {
			continue // `chaos run` runs and stores nothing then
		}
		res := execQuiet(t, s, verdict)
		dirs = append(dirs, res.Dir)
	}
	return dirs
}

func execQuiet(t *testing.T, spec record.Spec, verdict func(string, uint64) record.Verdict) record.Result {
	t.Helper()
	out, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	res, err := execute(context.Background(), spec, fakeRuntime{}, out, fakeCell(verdict))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The acceptance of --shard: every shard of a matrix, merged, stores the
// cells, verdicts, seeds, failure rates, checks across cells and exit
// code the unsharded run stores.
func TestShardsMergeToTheUnshardedRun(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		versions, nemeses, runs int
		verdict                 func(string, uint64) record.Verdict
		shards                  []int
	}{
		{"one cell once", 1, 1, 1, mixed, []int{1, 2, 3}},
		{"matrix once", 2, 3, 1, mixed, []int{1, 2, 5, 24, 30}},
		{"matrix three runs", 2, 2, 3, mixed, []int{2, 3, 7, 48, 50}},
		{"healthy matrix", 1, 3, 2, allValid, []int{2, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := shardSpec(t, tc.versions, tc.nemeses, tc.runs)
			spec.Store = filepath.Join(t.TempDir(), "whole")
			whole, err := record.ReadResult(execQuiet(t, spec, tc.verdict).Dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range tc.shards {
				merged, err := Merge(filepath.Join(t.TempDir(), "merged"), runShards(t, spec, n, tc.verdict))
				if err != nil {
					t.Fatalf("N=%d: %v", n, err)
				}
				stored, err := record.ReadResult(merged.Dir)
				if err != nil {
					t.Fatal(err)
				}
				sameRun(t, fmt.Sprintf("N=%d", n), whole, stored)
			}
		})
	}
}

// sameRun compares what a merge stored with what the unsharded run did.
func sameRun(t *testing.T, what string, whole, merged record.Result) {
	t.Helper()
	if merged.Spec.Shard != nil || merged.Spec.Command != whole.Spec.Command || merged.Command != whole.Command {
		t.Errorf("%s: merged spec shard %v, command %q; want none and %q", what, merged.Spec.Shard, merged.Spec.Command, whole.Spec.Command)
	}
	if len(merged.Cells) != len(whole.Cells) {
		t.Fatalf("%s: %d cells, unsharded %d", what, len(merged.Cells), len(whole.Cells))
	}
	for i, w := range whole.Cells {
		m := merged.Cells[i]
		if m.Name != w.Name || m.Seed != w.Seed || m.Repeat != w.Repeat || m.Verdict != w.Verdict || !reflect.DeepEqual(m.Checks, w.Checks) {
			t.Errorf("%s: cell %d is %s seed %d %s; unsharded %s seed %d %s", what, i, m.Name, m.Seed, m.Verdict, w.Name, w.Seed, w.Verdict)
		}
		if b, err := os.ReadFile(filepath.Join(m.Dir, "seed.txt")); err != nil || string(b) != strconv.FormatUint(w.Seed, 10) {
			t.Errorf("%s: %s's folder: seed.txt %q, %v", what, m.Name, b, err)
		}
		if m.Cluster.Dir != m.Dir || filepath.Dir(m.Dir) != merged.Dir {
			t.Errorf("%s: %s's folders %s and %s are not the merged run's %s", what, m.Name, m.Dir, m.Cluster.Dir, merged.Dir)
		}
	}
	if merged.Verdict != whole.Verdict || record.ExitCode(merged, nil) != record.ExitCode(whole, nil) {
		t.Errorf("%s: verdict %s exit %d; unsharded %s exit %d", what, merged.Verdict, record.ExitCode(merged, nil), whole.Verdict, record.ExitCode(whole, nil))
	}
	if !reflect.DeepEqual(merged.Checks, whole.Checks) || len(whole.Checks) == 0 {
		t.Errorf("%s: checks across cells %+v; unsharded %+v", what, merged.Checks, whole.Checks)
	}
	if len(merged.Repeats) != len(whole.Repeats) {
		t.Fatalf("%s: %d repeat summaries, unsharded %d", what, len(merged.Repeats), len(whole.Repeats))
	}
	for i, w := range whole.Repeats {
		m := merged.Repeats[i]
		mf, wf := m.FirstFailure, w.FirstFailure
		m.FirstFailure, w.FirstFailure = nil, nil
		if m != w || (mf == nil) != (wf == nil) {
			t.Errorf("%s: repeats %+v; unsharded %+v", what, m, w)
			continue
		}
		if mf != nil && (mf.Repeat != wf.Repeat || mf.Seed != wf.Seed || mf.Rerun != wf.Rerun || filepath.Base(mf.Dir) != filepath.Base(wf.Dir)) {
			t.Errorf("%s: first failure %+v; unsharded %+v", what, *mf, *wf)
		}
	}
}

// A merge refuses, in one line and before writing anything, folders that
// are not every shard of one run once each.
func TestMergeRefusesWhatIsNotOneRunsShards(t *testing.T) {
	spec := shardSpec(t, 1, 3, 1) // 12 cells
	three := runShards(t, spec, 3, mixed)
	two := runShards(t, spec, 2, mixed)
	other := spec
	other.Seed = 8
	otherTwo := runShards(t, other, 2, mixed)
	whole := spec
	whole.Store = filepath.Join(t.TempDir(), "whole")
	unsharded := execQuiet(t, whole, mixed).Dir
	for _, tc := range []struct {
		name string
		dirs []string
		want string
	}{
		{"a shard missing", []string{three[0], three[2]}, "shard 2/3 is missing (4 of the 12 cells and runs)"},
		{"a shard twice", []string{three[0], three[1], three[2], three[1]}, "shard 2/3 given twice"},
		{"another split", []string{three[0], two[1]}, "not one split"},
		{"another spec", []string{two[0], otherTwo[1]}, `shards of different runs: their "seed" differs`},
		{"not a shard", []string{two[0], unsharded}, "is not a shard: its run had no --shard"},
		{"not a run", []string{two[0], two[1], t.TempDir()}, "holds no results.json: not a finished run"},
		{"nothing", nil, "no shard given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "merged")
			_, err := Merge(store, tc.dirs)
			if !errors.Is(err, ErrNotShards) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one line with %q", err, tc.want)
			}
			if _, serr := os.Stat(store); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("the refused merge wrote %s", store)
			}
		})
	}
	if _, err := Merge(filepath.Join(t.TempDir(), "merged"), two); err != nil {
		t.Errorf("both shards: %v", err)
	}
}

// Validate refuses the shards a run cannot honour: out of range, or with
// --bisect or --until-fail, which depend on the whole run's outcomes.
func TestValidateShard(t *testing.T) {
	for _, tc := range []struct {
		shard     record.Shard
		bisect    bool
		untilFail bool
		want      string
	}{
		{record.Shard{Index: 1, Count: 2}, false, false, ""},
		{record.Shard{Index: 0, Count: 2}, false, false, "1 <= I <= N"},
		{record.Shard{Index: 3, Count: 2}, false, false, "1 <= I <= N"},
		{record.Shard{Index: 1, Count: 2}, true, false, "--shard does not go with --bisect"},
		{record.Shard{Index: 1, Count: 2}, false, true, "--shard does not go with --until-fail"},
	} {
		s := record.Spec{Shard: &tc.shard, Bisect: tc.bisect, UntilFail: tc.untilFail}
		err := validateShard(s)
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc, err, tc.want)
		}
	}
}
