package counter

import (
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// integrationRerun is the chaos command of the integration test's cell.
const integrationRerun = "chaos run --workload counter --runtime docker --direct-get on --nemesis kill --time-limit 12s --nemesis-interval 3s --seed 7"

// TestIntegrationDockerCounter: one cell on a real 3-node cluster, with
// Direct Get on and leaders killed, through the pipeline as `chaos run
// --workload counter` runs it. It reaches a verdict with the three checks,
// replica-divergence over all three copies and node-health, the kills
// verified, adds acknowledged with totals, reads answered on both paths,
// every counter read after the heal, and `chaos check` judging the stored
// cell the same. A verdict other than valid is
// logged with its rerun command: it is a finding to look at, not a harness
// failure.
func TestIntegrationDockerCounter(t *testing.T) {
	rt := celltest.Docker(t)
	spec := record.Spec{Workload: Name, Runtime: rt.Name(), Store: t.TempDir(), TimeLimit: 12 * time.Second,
		DirectGet: []bool{true}, ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{"kill"},
		NemesisInterval: 3 * time.Second, Seed: 7, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute, Command: integrationRerun}
	cell, printed := celltest.Cell(t, rt, spec, Defaults)
	checks := celltest.Checks(cell)
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
	if celltest.Verified(cell) == 0 {
		t.Errorf("no verified kill: %+v", cell.Faults)
	}
	text := strings.Join(cell.Summary, "\n")
	for _, want := range []string{"adds: acknowledged", "through Direct Get", "from the leader"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q: %s", want, text)
		}
	}
	celltest.Recheck(t, cell, Name)
	if cell.Verdict != record.Valid {
		t.Logf("not valid under kill; rerun: %s\n%s", integrationRerun, printed)
	}
}
