package catchup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// pipelineCell runs one catch-up cell through the pipeline, as `chaos run
// --workload catchup` does, and returns the cell's catchup.json with the
// checks and verdict of its results.json, the cell result itself, and what
// the run printed.
func pipelineCell(t *testing.T, rt cluster.Runtime, opts Options, nemesis string) (Result, record.CellResult, string) {
	t.Helper()
	spec := record.Spec{Workload: Name, Runtime: rt.Name(), Store: t.TempDir(), DirectGet: []bool{opts.DirectGet},
		ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{nemesis}, NemesisInterval: 3 * time.Second,
		Seed: 5, CheckTimeout: time.Minute, Command: "chaos run --workload catchup (test)"}
	if err := run.SetSettings(&spec, []workloads.Settings{opts}); err != nil {
		t.Fatal(err)
	}
	if err := run.Validate(spec); err != nil {
		t.Fatal(err)
	}
	if err := run.Refuse(spec, rt); err != nil {
		t.Fatal(err)
	}
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	res, err := run.Execute(context.Background(), spec, rt, out)
	printed, _ := os.ReadFile(out.Name())
	for _, l := range strings.Split(string(printed), "\n") {
		t.Log(l)
	}
	if err != nil || len(res.Cells) != 1 {
		t.Fatalf("execute: %v, %d cells", err, len(res.Cells))
	}
	cr := res.Cells[0]
	r, err := Load(cr.Dir)
	if err != nil && cr.Error == "" {
		t.Fatalf("load %s: %v", filepath.Join(cr.Dir, ResultFile), err)
	}
	r.Checks, r.Error = cr.Checks, cr.Error
	r.Verdict = checker.Worst(cr.Checks)
	return r, cr, string(printed)
}

// TestCheckReproducesVerdict: the checks of a stored cell, judged again
// from its files alone, are those the run stored.
func checkAgain(t *testing.T, cr record.CellResult) {
	t.Helper()
	w, _ := workloads.Get(Name)
	again, err := run.CheckCell(cr.Dir, w, cr.Recovery, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(cr.Checks) {
		t.Fatalf("chaos check gives %d checks, the run stored %d", len(again), len(cr.Checks))
	}
	for i := range again {
		if again[i].Name != cr.Checks[i].Name || again[i].Verdict != cr.Checks[i].Verdict || again[i].Summary != cr.Checks[i].Summary {
			t.Errorf("check %d: again %s %s %q, stored %s %s %q", i, again[i].Name, again[i].Verdict, again[i].Summary,
				cr.Checks[i].Name, cr.Checks[i].Verdict, cr.Checks[i].Summary)
		}
	}
}
