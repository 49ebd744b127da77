package nemesis

import (
	"errors"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
)

// The docker runtime cuts routes for real (nftables in each container), so
// the partitions run here, with kill, pause and wipe on containers.
func TestIntegrationDockerFaults(t *testing.T) {
	t.Parallel()
	needDocker(t)
	rt := docker.New()
	// Latency needs sch_netem, which this kernel lacks: refused up front,
	// saying why. Loss and bandwidth do without it (docker_data_test.go).
	fs, _ := Parse("latency")
	if err := Refuse(fs, rt); !errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("Refuse(latency) = %v, want a cluster.ErrUnsupported refusal", err)
	} else {
		t.Logf("refused up front: %v", err)
	}
	fs, _ = Parse("loss,bandwidth,bitflip,member-replace")
	if err := Refuse(fs, rt); err != nil {
		t.Errorf("Refuse(loss,bandwidth,bitflip,member-replace) = %v", err)
	}
	rc := startReal(t, rt, cluster.Config{Nodes: 3, RunID: "nemesis-test"})
	rc.runAll(t, []string{"partition-one", "partition-leader", "partition-halves", "kill", "pause", "wipe"})
}
