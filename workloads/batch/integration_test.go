package batch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	pipeline "github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

func needDocker(t testing.TB) *docker.Runtime {
	t.Helper()
	os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
	testenv.Require(t, testenv.Docker(docker.Available))
	return docker.New()
}

// integrationRerun is the chaos command of the integration test's cell.
const integrationRerun = "chaos run --workload batch --runtime docker --direct-get on --nemesis kill --time-limit 12s --nemesis-interval 3s --seed 7"

// TestIntegrationDockerBatch: one cell on a real 3-node cluster, with Direct
// Get on and leaders killed, through the pipeline as `chaos run --workload
// batch` runs it. It reaches a verdict with both checks, replica-divergence
// over all three copies and node-health,
// the kills verified, batches of every kind tried, the readers and the
// multi-subject reads answered, and `chaos check` judging the stored cell
// the same. A verdict other than valid is logged with its rerun command:
// it is a finding to look at, not a harness failure.
func TestIntegrationDockerBatch(t *testing.T) {
	rt := needDocker(t)
	spec := record.Spec{Workload: Name, Runtime: rt.Name(), Store: t.TempDir(), TimeLimit: 12 * time.Second,
		DirectGet: []bool{true}, ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{"kill"},
		NemesisInterval: 3 * time.Second, Seed: 7, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute, Command: integrationRerun}
	if err := pipeline.SetSettings(&spec, []workloads.Settings{Defaults}); err != nil {
		t.Fatal(err)
	}
	if err := pipeline.Validate(spec); err != nil {
		t.Fatal(err)
	}
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	res, err := pipeline.Execute(context.Background(), spec, rt, out)
	printed, _ := os.ReadFile(out.Name())
	if err != nil || len(res.Cells) != 1 {
		t.Fatalf("execute: %v, %d cells\n%s", err, len(res.Cells), printed)
	}
	cell := res.Cells[0]
	if cell.Error != "" || cell.Verdict == record.Error {
		t.Fatalf("no verdict: %s\n%s", cell.Error, printed)
	}
	checks := map[string]checker.Result{}
	for _, r := range cell.Checks {
		checks[r.Name] = r
	}
	for _, n := range []string{CheckAtomic, CheckIsolation, replicas.NameDivergence} {
		if _, ok := checks[n]; !ok {
			t.Errorf("check %s missing: %v", n, cell.Checks)
		}
	}
	if c := checks[CheckAtomic].Counts; c["acknowledged"] < 20 || c["whole"] < 20 {
		t.Errorf("batch-atomic counts %v: too few batches acknowledged and stored", c)
	}
	if c := checks[CheckIsolation].Counts; c["batch_messages_delivered"] < 100 || c["snapshots"] < 20 {
		t.Errorf("batch-isolation counts %v: too few deliveries or multi-subject reads", c)
	}
	if c := checks[replicas.NameDivergence].Counts; c[replicas.CountReplicasRead] != 3 {
		t.Errorf("replica-divergence read %d of 3 replicas: %s", c[replicas.CountReplicasRead], checks[replicas.NameDivergence].Summary)
	}
	verified := 0
	for _, f := range cell.Faults {
		if f.Verified {
			verified++
		}
	}
	if verified == 0 {
		t.Errorf("no verified kill: %+v", cell.Faults)
	}
	text := strings.Join(cell.Summary, "\n")
	for _, want := range []string{"batches tried", "commit ", "deliveries", "read back:"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q: %s", want, text)
		}
	}
	if _, err := os.Stat(filepath.Join(cell.Dir, ReadBackFile)); err != nil {
		t.Error(err)
	}
	w, _ := workloads.Get(Name)
	again, err := pipeline.CheckCell(cell.Dir, w, cell.Recovery, checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range again {
		if again[i].Verdict != cell.Checks[i].Verdict || again[i].Summary != cell.Checks[i].Summary {
			t.Errorf("chaos check: %s %s %q, the run stored %s %q", again[i].Name, again[i].Verdict, again[i].Summary,
				cell.Checks[i].Verdict, cell.Checks[i].Summary)
		}
	}
	if cell.Verdict != record.Valid {
		t.Logf("not valid under kill; rerun: %s\n%s", integrationRerun, printed)
	}
}
