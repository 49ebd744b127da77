package sources

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client/clienttest"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Cells on an in-process server, without faults: limits origins with a
// mirror and the transform, a work-queue cell, and a cell that repeats
// ids. Each records publishes, copy samples and the consumers' ops,
// stores every stream, and its checks find nothing (replica-divergence has
// one copy to compare: unknown, saying so).
func TestInstanceOnAServer(t *testing.T) {
	nodes, _ := clienttest.Server(t, 1)
	cells := []Options{
		{Retention: Limits, Transform: true},
		{Retention: WorkQueue},
		{Retention: Limits, RepeatIDs: true},
	}
	for n, c := range cells {
		o := Defaults
		o.Stream, o.Replicas, o.Seed, o.Rate = "S"+string(rune('A'+n)), 1, 1, 400
		o.Retention, o.Transform, o.RepeatIDs = c.Retention, c.Transform, c.RepeatIDs
		t.Run(string(o.Retention)+map[bool]string{true: "-transform", false: ""}[o.Transform]+map[bool]string{true: "-repeat", false: ""}[o.RepeatIDs], func(t *testing.T) {
			t.Parallel()
			dir := runCell(t, nodes, o, 5*time.Second)
			results, err := Check(dir, checker.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Ops.Publishes) < 500 || len(c.Ops.Copies) < 3 {
				t.Fatalf("%d publishes, %d copy samples", len(c.Ops.Publishes), len(c.Ops.Copies))
			}
			names := map[string]bool{}
			for _, r := range results {
				names[r.Name] = true
				t.Logf("%s: %s: %s", r.Name, r.Verdict, r.Summary)
				if r.Name == replicas.NameDivergence {
					continue
				}
				if r.Verdict != checker.Valid {
					t.Errorf("%s: %s: %s", r.Name, r.Verdict, r.Summary)
				}
			}
			for _, want := range []string{CheckSource, CheckStall, "queue-lost", "queue-duplicate", "queue-redelivery"} {
				if !names[want] {
					t.Errorf("no %s among %v", want, names)
				}
			}
			if names[CheckMirror] == (o.Retention == WorkQueue) || names[CheckWorkQueue] != (o.Retention == WorkQueue) {
				t.Errorf("checks %v for a %s cell", names, o.Retention)
			}
			if o.RepeatIDs && countRepeats(c) == 0 {
				t.Errorf("no publish repeated an id")
			}
		})
	}
}

func countRepeats(c *Cell) int {
	n := 0
	for _, p := range c.Ops.Publishes {
		if p.Repeat && p.H.Outcome == history.OK {
			n++
		}
	}
	return n
}

// runCell runs one cell for d on nodes and returns its folder.
func runCell(t *testing.T, nodes []cluster.Node, o Options, d time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	hist, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	env := &workloads.Env{Cluster: clienttest.Cluster{N: nodes}, Dir: dir, History: hist, Phase: func(string) {}, Logf: t.Logf}
	ctx := context.Background()
	if err := writeSettings(dir, o); err != nil {
		t.Fatal(err)
	}
	i, err := setup(ctx, o, env)
	if err != nil {
		t.Fatal(err)
	}
	defer i.Close()
	rctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := i.Run(rctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := i.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	if err := hist.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}
