package nemesis

import (
	"errors"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
)

// The docker runtime cuts routes for real (nftables in each container), so
// the partitions run here, with kill, pause and wipe on containers.
func TestDockerFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-node nats-server cluster in Docker")
	}
	rt := docker.New()
	for _, list := range []string{"latency", "loss"} {
		fs, _ := Parse(list)
		if err := Refuse(fs, rt); err != nil {
			if !errors.Is(err, cluster.ErrUnsupported) {
				t.Errorf("Refuse(%s) = %v, want a cluster.ErrUnsupported refusal", list, err)
			}
			t.Logf("refused up front: %v", err)
		}
	}
	rc := startReal(t, rt, cluster.Config{Nodes: 3, RunID: "nemesis-test"})
	rc.runAll(t, []string{"partition-one", "partition-leader", "partition-halves", "kill", "pause", "wipe"})
}
