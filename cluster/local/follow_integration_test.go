package local

import (
	"syscall"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/followtest"
)

// FollowLog on a real cluster: followtest's scenario. The servers log in
// this machine's time zone.
func TestIntegrationFollowLog(t *testing.T) {
	c, track := startCluster(t, cluster.Config{RunID: "followlog"})
	followtest.Run(t, c, time.Local, func(i int) error {
		track(i) // the restarted process, for the teardown's check
		return syscall.Kill(c.PID(i), syscall.SIGHUP)
	})
}
