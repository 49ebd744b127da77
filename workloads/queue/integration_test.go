package queue

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Integration tests: one real 3-node Docker cluster at a time, each cell
// about half a minute (12s of traffic, a 2s ack wait so the drain is short).

// testOptions are the defaults with a short ack wait and bounds.
func testOptions(mut func(o *Options)) Options {
	o := Defaults
	o.Rate, o.AckWait, o.StallBound, o.DrainTimeout = 200, Duration(2*time.Second), Duration(10*time.Second), Duration(30*time.Second)
	if mut != nil {
		mut(&o)
	}
	return o
}

// pipelineCell runs one queue cell through the pipeline as `chaos run
// --workload queue` does and returns its result and what it printed.
func pipelineCell(t *testing.T, rt *docker.Runtime, o Options, nemesis string) (record.CellResult, string) {
	t.Helper()
	spec := record.Spec{Workload: Name, Runtime: rt.Name(), Store: t.TempDir(), TimeLimit: 12 * time.Second,
		DirectGet: []bool{false}, ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{nemesis},
		NemesisInterval: 3 * time.Second, Seed: 7, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute,
		Command: rerun(o, nemesis)}
	return celltest.Cell(t, rt, spec, o)
}

// TestIntegrationDockerQueue: a healthy cluster is valid; under each fault the cell
// runs to a verdict with every checker, the fault verified, messages
// flowing, its files written, and chaos check judging it the same from
// them. Each fault case uses another retention, ack mode or consumer
// pattern so that every path of the workload runs against a real cluster.
// A fault cell that is not valid prints its findings and rerun command.
func TestIntegrationDockerQueue(t *testing.T) {
	rt := celltest.Docker(t)
	cases := []struct {
		nemesis   string
		mut       func(o *Options)
		mustValid bool
	}{
		{"none", nil, true},
		{"kill", nil, false},
		{"partition-leader", func(o *Options) { o.Retention, o.Consumers = WorkQueue, 1 }, false},
		{"pause", func(o *Options) { o.Retention, o.Ack = Interest, FireAndForget }, false},
		{"stepdown", func(o *Options) { o.Pattern = Ordered }, false},
	}
	for _, c := range cases {
		t.Run(c.nemesis, func(t *testing.T) {
			t.Parallel()
			o := testOptions(c.mut)
			cell, printed := pipelineCell(t, rt, o, c.nemesis)
			assertCell(t, cell, o, c.nemesis)
			if cell.Verdict != record.Valid {
				msg := "not valid under " + c.nemesis + "; rerun: " + rerun(o, c.nemesis) + "\n" + printed
				if c.mustValid {
					t.Fatal(msg)
				}
				t.Log(msg)
			}
		})
	}
}

// assertCell checks what every queue cell must have, whatever its verdict.
func assertCell(t *testing.T, cell record.CellResult, o Options, nemesis string) {
	t.Helper()
	checks := celltest.Checks(cell)
	// The pipeline's observer judges every cell's nodes too (node-health).
	want := []string{CheckLost, CheckUnexpected, CheckDuplicate, CheckOrder, CheckStall, CheckIntegrity, "recovery", observe.CheckName}
	if o.Pattern == Pull {
		want = append(want, CheckRedelivery)
	}
	if o.Retention == WorkQueue {
		want = append(want, CheckWorkQueue)
	}
	for _, n := range want {
		if _, ok := checks[n]; !ok {
			t.Errorf("check %s missing", n)
		}
	}
	if len(checks) != len(want) {
		t.Errorf("%d checks, want %d", len(checks), len(want))
	}
	if acked := checks[CheckLost].Counts["acknowledged"]; acked < 100 {
		t.Errorf("only %d acknowledged publishes", acked)
	}
	if d := checks[CheckUnexpected].Counts["deliveries"]; d < checks[CheckLost].Counts["acknowledged"] {
		t.Errorf("%d deliveries for %d acknowledged messages", d, checks[CheckLost].Counts["acknowledged"])
	}
	if nemesis != "none" {
		if celltest.Verified(cell) == 0 {
			t.Errorf("no verified %s window: %+v", nemesis, cell.Faults)
		}
	}
	text := strings.Join(cell.Summary, "\n")
	if !strings.Contains(text, "published") || !strings.Contains(text, "deliveries") {
		t.Errorf("summary: %s", text)
	}
	for _, f := range []string{SettingsFile, StreamFile, SeriesFile, "history.jsonl"} {
		if st, err := os.Stat(filepath.Join(cell.Dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	celltest.Recheck(t, cell, Name)
}

// rerun is the chaos command that runs the same cell.
func rerun(o Options, nemesis string) string {
	return fmt.Sprintf("chaos run --workload queue --runtime docker --direct-get off --nemesis %s --time-limit 12s --nemesis-interval 3s --seed 7 "+
		"--rate %g --ack-wait %s --stall-bound %s --drain-timeout %s --retention %s --consumers %d --ack %s --consumer-pattern %s",
		nemesis, o.Rate, o.AckWait.D(), o.StallBound.D(), o.DrainTimeout.D(), o.Retention, o.Consumers, o.Ack, o.Pattern)
}
