package schedule

import (
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// TestIntegrationDockerIssue8423 keeps nats-server issue 8423 reproduced,
// the way etcd keeps each bug it reproduced: on v2.14.5 a work-queue
// stream whose targets another stream sources loses pending schedules
// (schedule-once: never_fired, excused by --expect as the known anomaly),
// and on v2.14.6, which fixed it, the same cell is valid.
func TestIntegrationDockerIssue8423(t *testing.T) {
	t.Parallel()
	rt := celltest.Docker(t)
	for _, tc := range []struct {
		version string
		lost    bool
	}{{"v2.14.5", true}, {"v2.14.6", false}} {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			spec := record.Spec{Workload: Name, Runtime: rt.Name(), Store: t.TempDir(), TimeLimit: 8 * time.Second,
				DirectGet: []bool{false}, ServerVersions: []string{tc.version}, Nemeses: []string{"none"},
				NemesisInterval: 5 * time.Second, Seed: 8423, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute,
				Command: "chaos run --workload schedule --schedule-stream workqueue --fire-grace 10s --time-limit 8s --server-version " + tc.version}
			o := Defaults
			o.Retention, o.FireGrace = RetentionWorkQueue, 10*time.Second
			cell, printed := celltest.Cell(t, rt, spec, o)
			once := celltest.Checks(cell)[CheckOnce]
			m := record.Checks{CheckOnce: &once}
			switch {
			case tc.lost && (!dropsFound(m) || !dropsExplain(m, CheckOnce)):
				t.Errorf("issue 8423 did not reproduce on %s: %s %v\n%s", tc.version, once.Verdict, once.Counts, printed)
			case !tc.lost && once.Verdict != checker.Valid:
				t.Errorf("%s, which fixed issue 8423: %s %s\n%s", tc.version, once.Verdict, once.Summary, printed)
			}
			celltest.Recheck(t, cell, Name)
		})
	}
}
