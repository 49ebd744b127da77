package nemesis

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
)

// TestIntegrationDockerPowerLoss runs each power-loss fault on one real cluster with
// the FUSE store: each window must see its targets down and their stores
// rolled back, and the cluster must recover. It runs with sync_interval
// always, where nothing acknowledged may be lost, so that one cluster
// serves all three; cluster/docker's TestIntegrationPowerLossStore shows the loss
// with the default interval.
func TestIntegrationDockerPowerLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-node nats-server cluster in Docker")
	}
	rt := docker.New()
	if err := docker.Available(t.Context()); err != nil {
		t.Skip(err)
	}
	fs, _ := Parse("power-loss")
	if err := Refuse(fs, rt); err != nil {
		t.Skipf("refused up front: %v", err)
	}
	rc := startReal(t, rt, cluster.Config{Nodes: 3, RunID: "nemesis-powerloss", PowerLossStore: true, SyncInterval: "always"})
	rc.runAll(t, []string{"power-loss", "power-loss-majority", "power-loss-all"})
}
