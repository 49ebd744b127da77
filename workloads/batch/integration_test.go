package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

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
	rt := celltest.Docker(t)
	spec := record.Spec{Workload: Name, Runtime: rt.Name(), Store: t.TempDir(), TimeLimit: 12 * time.Second,
		DirectGet: []bool{true}, ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{"kill"},
		NemesisInterval: 3 * time.Second, Seed: 7, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute, Command: integrationRerun}
	cell, printed := celltest.Cell(t, rt, spec, Defaults)
	checks := celltest.Checks(cell)
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
	if celltest.Verified(cell) == 0 {
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
	celltest.Recheck(t, cell, Name)
	if cell.Verdict != record.Valid {
		t.Logf("not valid under kill; rerun: %s\n%s", integrationRerun, printed)
	}
}
