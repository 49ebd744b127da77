package schedule

import (
	"fmt"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// TestIntegrationDockerSchedule: one cell of each stream kind on a real
// 3-node cluster with a node killed, through the pipeline as `chaos run
// --workload schedule` runs it. Each reaches a verdict with its checks,
// one-shots fired and read back, repeating schedules firing, the kill
// verified and landing on due times, and `chaos check` judging the stored
// cell the same. A verdict other than valid is logged with its rerun
// command: it is a finding to look at, not a harness failure.
func TestIntegrationDockerSchedule(t *testing.T) {
	t.Parallel()
	rt := celltest.Docker(t)
	for _, retention := range []string{RetentionLimits, RetentionWorkQueue} {
		t.Run(retention, func(t *testing.T) {
			t.Parallel()
			rerun := fmt.Sprintf("chaos run --workload schedule --schedule-stream %s --runtime docker --nemesis kill --time-limit 12s --nemesis-interval 4s --seed 7", retention)
			spec := record.Spec{Workload: Name, Runtime: rt.Name(), Store: t.TempDir(), TimeLimit: 12 * time.Second,
				DirectGet: []bool{false}, ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{"kill"},
				NemesisInterval: 4 * time.Second, Seed: 7, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute, Command: rerun}
			o := Defaults
			o.Retention = retention
			cell, printed := celltest.Cell(t, rt, spec, o)
			checks := celltest.Checks(cell)
			want := []string{CheckOnce, CheckRepeat, CheckRemoved}
			if retention == RetentionLimits {
				want = append(want, replicas.NameDivergence)
			}
			for _, n := range want {
				if _, ok := checks[n]; !ok {
					t.Errorf("check %s missing: %v", n, cell.Checks)
				}
			}
			if c := checks[CheckOnce].Counts; c["fired"] < 50 || c["due_in_fault"] == 0 {
				t.Errorf("schedule-once counts %v: too few one-shots fired, or none due inside the kill", c)
			}
			if c := checks[CheckRepeat].Counts; c["firings"] < 2*Defaults.Repeating {
				t.Errorf("schedule-repeat counts %v: the repeating schedules hardly fired", c)
			}
			if c := checks[CheckRemoved].Counts; c["checked"] < 50 {
				t.Errorf("schedule-removed counts %v: too few fired one-shots looked for", c)
			}
			final, ok, err := loadFinal(cell.Dir)
			if err != nil || !ok || !final.Complete || len(final.Firings) == 0 {
				t.Errorf("%s: read %v, complete %v, %d firings, %v", FinalFile, ok, final.Complete, len(final.Firings), err)
			}
			if retention == RetentionWorkQueue && len(final.States) != 3 {
				t.Errorf("work-queue cell: %d states, want 3", len(final.States))
			}
			if celltest.Verified(cell) == 0 {
				t.Errorf("no verified kill: %+v", cell.Faults)
			}
			celltest.Recheck(t, cell, Name)
			if cell.Verdict != record.Valid {
				t.Logf("not valid under kill; rerun: %s\n%s", rerun, printed)
			}
		})
	}
}
