package nemesis

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
)

// TestIntegrationDockerPowerLoss runs each power-loss fault on one real cluster with
// the FUSE store: each window must see its targets down and their stores
// rolled back, and the cluster must recover. It runs with sync_interval
// always, where nothing acknowledged may be lost, so that one cluster
// serves all three; cluster/docker's TestIntegrationPowerLossStore shows the loss
// with the default interval.
func TestIntegrationDockerPowerLoss(t *testing.T) {
	t.Parallel()
	rt := docker.New()
	fs, _ := Parse("power-loss")
	// The refusal says what is missing: FUSE, or a daemon whose containers
	// see this machine's mounts.
	testenv.Require(t, testenv.Docker(docker.Available), testenv.FUSE(func() error { return Refuse(fs, rt) }))
	rc := startReal(t, rt, cluster.Config{Nodes: 3, RunID: "nemesis-powerloss", PowerLossStore: true, SyncInterval: "always"})
	rc.runAll(t, []string{"power-loss", "power-loss-majority", "power-loss-all"})
}
