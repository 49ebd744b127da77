package counter

import (
	"context"
	"os"
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
const integrationRerun = "chaos run --workload counter --runtime docker --direct-get on --nemesis kill --time-limit 12s --nemesis-interval 3s --seed 7"

// TestIntegrationDockerCounter: one cell on a real 3-node cluster, with
// Direct Get on and leaders killed, through the pipeline as `chaos run
// --workload counter` runs it. It reaches a verdict with the three checks,
// replica-divergence over all three copies and node-health, the kills verified, adds acknowledged with totals, reads
// answered on both paths, every counter read after the heal, and `chaos
// check` judging the stored cell the same. A verdict other than valid is
// logged with its rerun command: it is a finding to look at, not a harness
// failure.
func TestIntegrationDockerCounter(t *testing.T) {
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
	for _, n := range []string{CheckTotal, CheckDedupe, CheckReads, replicas.NameDivergence} {
		if _, ok := checks[n]; !ok {
			t.Errorf("check %s missing: %v", n, cell.Checks)
		}
	}
	if c := checks[CheckTotal].Counts; c["exact"]+c["within"] != Defaults.Counters && checks[CheckTotal].Verdict == checker.Valid {
		t.Errorf("counter-total counts %v: valid without judging all %d counters", c, Defaults.Counters)
	}
	if c := checks[CheckReads].Counts; c["reads"] < 100 || c["direct_reads"] < 20 || c["reads"]-c["direct_reads"] < 20 {
		t.Errorf("counter-reads counts %v: too few reads on one path", c)
	}
	if c := checks[replicas.NameDivergence].Counts; c[replicas.CountReplicasRead] != 3 {
		t.Errorf("replica-divergence read %d of 3 replicas: %s", c[replicas.CountReplicasRead], checks[replicas.NameDivergence].Summary)
	}
	final, ok, err := loadFinal(cell.Dir)
	if err != nil || !ok || !final.Complete {
		t.Errorf("%s: read %v, complete %v, %v", FinalFile, ok, final.Complete, err)
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
	for _, want := range []string{"adds: acknowledged", "through Direct Get", "from the leader"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q: %s", want, text)
		}
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
