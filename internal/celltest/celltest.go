// Package celltest is what the workloads' Docker tests and benchmarks
// share: the Docker runtime by testenv's rule, one cell run through the
// pipeline as `chaos run` runs it, its checks by name, `chaos check`
// agreeing with the run, and a cluster for a paired benchmark with its
// alternating phases.
package celltest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Docker is the Docker runtime, set as the project runs testcontainers-go
// (no Ryuk, no pulled image; loopback only), or the test skipped or failed
// by testenv's rule.
func Docker(t testing.TB) *docker.Runtime {
	t.Helper()
	os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
	testenv.Require(t, testenv.Docker(docker.Available))
	return docker.New()
}

// Cell runs spec, which names one cell, with settings through the
// pipeline as `chaos run` does (validated, refused where the runtime
// lacks what it needs), and returns the cell and what the run printed. An error, a
// count of cells other than one, or a cell without a verdict fails t.
func Cell(t *testing.T, rt cluster.Runtime, spec record.Spec, settings workloads.Settings) (record.CellResult, string) {
	t.Helper()
	if err := run.SetSettings(&spec, []workloads.Settings{settings}); err != nil {
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
	if err != nil || len(res.Cells) != 1 {
		t.Fatalf("execute: %v, %d cells\n%s", err, len(res.Cells), printed)
	}
	cell := res.Cells[0]
	if cell.Error != "" || cell.Verdict == record.Error {
		t.Fatalf("no verdict: %s\n%s", cell.Error, printed)
	}
	return cell, string(printed)
}

// Checks are a cell's results by check name.
func Checks(cell record.CellResult) map[string]checker.Result {
	out := map[string]checker.Result{}
	for _, r := range cell.Checks {
		out[r.Name] = r
	}
	return out
}

// Verified counts the cell's fault windows whose effect was verified.
func Verified(cell record.CellResult) int {
	n := 0
	for _, f := range cell.Faults {
		if f.Verified {
			n++
		}
	}
	return n
}

// Recheck fails t where `chaos check` judges the stored cell otherwise
// than the run did: every check's verdict and summary must be the same.
func Recheck(t *testing.T, cell record.CellResult, workload string) {
	t.Helper()
	w, err := workloads.Get(workload)
	if err != nil {
		t.Fatal(err)
	}
	again, err := run.CheckCell(cell.Dir, w, cell.Recovery, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(cell.Checks) {
		t.Errorf("chaos check: %d results, the run stored %d", len(again), len(cell.Checks))
	}
	for i := range min(len(again), len(cell.Checks)) {
		if again[i].Verdict != cell.Checks[i].Verdict || again[i].Summary != cell.Checks[i].Summary {
			t.Errorf("chaos check: %s %s %q, the run stored %s %q", again[i].Name, again[i].Verdict, again[i].Summary,
				cell.Checks[i].Verdict, cell.Checks[i].Summary)
		}
	}
}

// BenchCluster starts a cluster of the default shape for a benchmark,
// closed when it ends.
func BenchCluster(b *testing.B, name string) cluster.Cluster {
	b.Helper()
	rt := Docker(b)
	cfg := cluster.Config{Dir: b.TempDir(), RunID: fmt.Sprintf("%s-bench-%d", name, time.Now().UnixNano())}.WithDefaults()
	c, err := rt.Start(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// Rate is what one phase of a paired benchmark did: its count and how
// long it took.
type Rate struct{ N, Secs float64 }

// Paired runs bare and harness phases alternately, twice per b.N (bare,
// harness, bare, harness), so the machine's drift falls on both, and
// reports the harness's rate over the bare loop's as unit-ratio, and each
// rate as bare-units/s and harness-units/s.
func Paired(b *testing.B, unit, units string, bare, harness func() Rate) {
	var sum [2]Rate
	for range b.N {
		for range 2 {
			for i, phase := range []func() Rate{bare, harness} {
				r := phase()
				sum[i].N, sum[i].Secs = sum[i].N+r.N, sum[i].Secs+r.Secs
			}
		}
	}
	bareRate, harnessRate := sum[0].N/sum[0].Secs, sum[1].N/sum[1].Secs
	b.ReportMetric(harnessRate/bareRate, unit+"-ratio")
	b.ReportMetric(bareRate, "bare-"+units+"/s")
	b.ReportMetric(harnessRate, "harness-"+units+"/s")
}

// HarnessPhase sets the workload up on c with settings s and Direct Get
// as directGet (the pipeline gives a cell's Direct Get through its Env,
// not its settings), runs it for d recording the history as a cell does,
// and counts the ops count picks.
// The streams the settings plan are deleted after it, so phases start
// alike.
func HarnessPhase(b *testing.B, c cluster.Cluster, s workloads.Settings, directGet bool, d time.Duration, count func(history.Op) bool) Rate {
	b.Helper()
	dir := b.TempDir()
	rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	env := &workloads.Env{Cluster: c, Dir: dir, History: rec, DirectGet: directGet, Phase: func(string) {}, Logf: b.Logf}
	i, err := s.Setup(context.Background(), env)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	start := time.Now()
	err = i.Run(ctx, nil)
	secs := time.Since(start).Seconds()
	cancel()
	i.Close()
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, op := range rec.Ops() {
		if count(op) {
			n++
		}
	}
	for _, st := range s.Plan(c.Config()).Streams {
		DeleteStream(b, c, st.Name)
	}
	return Rate{N: float64(n), Secs: secs}
}

// DeleteStream deletes a stream a benchmark phase made.
func DeleteStream(b *testing.B, c cluster.Cluster, name string) {
	b.Helper()
	nc, err := client.Connect(c.Nodes(), client.Order(0, len(c.Nodes())), "bench-cleanup")
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := js.DeleteStream(ctx, name); err != nil {
		b.Fatalf("delete stream %s: %v", name, err)
	}
}
