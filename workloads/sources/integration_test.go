package sources

import (
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
)

// integrationRerun is the chaos command of the integration test's cell.
const integrationRerun = "chaos run --workload sources --runtime docker --fault-target sourced --transform on --nemesis kill --time-limit 12s --nemesis-interval 3s --seed 7"

// TestIntegrationDockerSources: one cell on a real 3-node cluster, with
// the sourced stream's leader killed and the transform on, through the
// pipeline as `chaos run --workload sources` runs it. It reaches a verdict
// with every check of a limits cell, the kills verified and aimed at the
// sourced stream's leader, every stream read back with the mirror and the
// sourced stream copying, replica-divergence over all three copies of the
// first origin, and `chaos check` judging the stored cell the same. A
// verdict other than valid is logged with its rerun command: it is a
// finding to look at, not a harness failure.
func TestIntegrationDockerSources(t *testing.T) {
	rt := celltest.Docker(t)
	spec := record.Spec{Workload: Name, Runtime: rt.Name(), Store: t.TempDir(), TimeLimit: 12 * time.Second,
		DirectGet: []bool{false}, ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{"kill"},
		NemesisInterval: 3 * time.Second, Seed: 7, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute, Command: integrationRerun}
	o := Defaults
	o.Target, o.Transform = TargetSourced, true
	cell, printed := celltest.Cell(t, rt, spec, o)
	checks := celltest.Checks(cell)
	for _, n := range []string{CheckMirror, CheckSource, CheckStall, replicas.NameDivergence, queue.CheckLost, queue.CheckDuplicate, queue.CheckRedelivery} {
		if _, ok := checks[n]; !ok {
			t.Errorf("check %s missing: %v", n, cell.Checks)
		}
	}
	if c := checks[CheckSource].Counts; c["copied"] < 500 {
		t.Errorf("source-exactly-once copied %d messages: %s", c["copied"], checks[CheckSource].Summary)
	}
	if c := checks[CheckMirror].Counts; c["copied"] < 200 {
		t.Errorf("mirror-copy copied %d messages: %s", c["copied"], checks[CheckMirror].Summary)
	}
	if c := checks[replicas.NameDivergence].Counts; c[replicas.CountReplicasRead] != 3 {
		t.Errorf("replica-divergence read %d of 3 replicas: %s", c[replicas.CountReplicasRead], checks[replicas.NameDivergence].Summary)
	}
	if celltest.Verified(cell) == 0 {
		t.Errorf("no verified kill: %+v", cell.Faults)
	}
	for _, f := range cell.Faults {
		if f.Fault != "kill:leader" {
			t.Errorf("fault %s: --fault-target sourced aims kill at the sourced stream's leader", f.Fault)
		}
	}
	sc, err := Load(cell.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sc.Streams {
		if !s.Complete || len(s.Messages) == 0 {
			t.Errorf("%s read back %d of %d messages (%s)", s.Name, len(s.Messages), s.Msgs, s.Error)
		}
	}
	for _, m := range sc.Stream(o.Sourced()).Messages[:1] {
		if m.Source == "" || m.SourceSeq == 0 || !strings.HasPrefix(m.Subject, o.prefix()+".all.") {
			t.Errorf("sourced message %+v: no Nats-Stream-Source or untransformed subject", m)
		}
	}
	celltest.Recheck(t, cell, Name)
	if cell.Verdict != record.Valid {
		t.Logf("not valid under kill; rerun: %s\n%s", integrationRerun, printed)
	}
}
