package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// TestIntegrationDockerAcceptance is the kv-update issue's acceptance on the Docker
// runtime with no faults: with Direct Get on, stale reads are found and the
// wrong-last-sequence rejections are attributed to them; with it off, no
// stale read and no read-your-writes violation.
func TestIntegrationDockerAcceptance(t *testing.T) {
	testenv.Require(t, testenv.Docker(docker.Available))
	spec := record.Spec{
		Workload: "kv-update", Runtime: "docker", Store: t.TempDir(), TimeLimit: 10 * time.Second,
		DirectGet: []bool{true, false}, ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{"none"},
		NemesisInterval: 5 * time.Second, Seed: 11, RecoveryTimeout: 60 * time.Second, CheckTimeout: 60 * time.Second,
		Command: "chaos run --seed=11",
	}
	spec = kvSpec(t, spec, kvupdate.Options{}.WithDefaults())
	out, _ := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	defer out.Close()
	res, err := Execute(context.Background(), spec, docker.New(), out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 2 {
		t.Fatalf("%d cells", len(res.Cells))
	}
	for _, c := range res.Cells {
		if c.Error != "" {
			t.Fatalf("%s: %s", c.Name, c.Error)
		}
		checks := map[string]checker.Result{}
		for _, ch := range c.Checks {
			checks[ch.Name] = ch
		}
		stale, session, attr := checks["stale-read"], checks["session"], checks["wrong-last-seq"]
		if c.DirectGet {
			if stale.Verdict != checker.Invalid || stale.Counts["stale_reads"] == 0 {
				t.Errorf("Direct Get on: want stale reads, got %s: %s", stale.Verdict, stale.Summary)
			}
			if attr.Counts["stale_read"] == 0 || attr.Counts["stale_read"] < attr.Counts["rejections"]*9/10 {
				t.Errorf("Direct Get on: want the rejections attributed to stale reads: %s", attr.Summary)
			}
			continue
		}
		if stale.Verdict != checker.Valid || session.Verdict != checker.Valid {
			t.Errorf("Direct Get off: stale-read %s (%s), session %s (%s)", stale.Verdict, stale.Summary, session.Verdict, session.Summary)
		}
	}
}
