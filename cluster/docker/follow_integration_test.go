package docker

import (
	"context"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/followtest"
	"github.com/moby/moby/client"
)

// FollowLog on a real cluster: followtest's scenario. The servers log in
// UTC: the image is FROM scratch, with no time zone.
func TestIntegrationFollowLog(t *testing.T) {
	t.Parallel()
	needDocker(t)
	c := startCluster(t, cluster.Config{RunID: "followlog"})
	dc := c.(*dockerCluster)
	followtest.Run(t, c, time.UTC, func(i int) error {
		_, err := dc.cli.ContainerKill(context.Background(), dc.nodes[i].id, client.ContainerKillOptions{Signal: "SIGHUP"})
		return err
	})
}
