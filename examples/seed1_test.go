// Package examples holds findings kept as go tests (package chaostest):
// the first reproduces the README's seed 1 with Direct Get on, the
// stale reads of the first user report, and passes while they show.
package examples

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/chaostest"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
)

// TestIntegrationSeed1StaleReads: on an R3 bucket with Direct Get on,
// followers answer reads, so kv.Update fails with "wrong last sequence"
// (10071) after a stale read. --expect keeps the anomaly as a positive
// control: the run passes only if the stale reads show and nothing else
// does. Drop the --expect line to turn it into a test that fails until a
// server fixes them.
func TestIntegrationSeed1StaleReads(t *testing.T) {
	testenv.Require(t, testenv.Docker(docker.Available))
	t.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	t.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
	o := chaostest.Run(t, "--workload", "kv-update", "--direct-get", "on", "--seed", "1",
		"--expect", "direct-get-on=stale-reads")
	if n := len(o.Result.Cells); n != 1 || o.Result.Cells[0].Name != "direct-get-on" {
		t.Fatalf("%d cells %+v: want the one Direct Get on cell", n, o.Result.Cells)
	}
}
