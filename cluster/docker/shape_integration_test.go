package docker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Loss and rate limits are state: in force through a restart of the node,
// removed at 0, counted by the kernel; StartAs renames a node in place;
// StoreDir is where its store is.
func TestIntegrationShapingAndRename(t *testing.T) {
	t.Parallel()
	needDocker(t)
	dir := t.TempDir()
	c := startCluster(t, cluster.Config{Dir: dir, RunID: "shaping"})
	t.Run("Loss", func(t *testing.T) { testLoss(t, c) })
	t.Run("Rate", func(t *testing.T) { testRate(t, c) })
	t.Run("StoreDir", func(t *testing.T) {
		d, err := c.StoreDir(2)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(d, "jetstream")); err != nil || d != filepath.Join(dir, "data", "n3") {
			t.Errorf("StoreDir(2) = %s: %v", d, err)
		}
	})
	t.Run("StartAs", func(t *testing.T) { testStartAs(t, c, dir) })
}

func netStats(t *testing.T, c cluster.Cluster, i int) cluster.NetStats {
	t.Helper()
	s, err := c.NetStats(context.Background(), i)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testLoss(t *testing.T, c cluster.Cluster) {
	ctx := context.Background()
	stats := func(i int) cluster.NetStats { t.Helper(); return netStats(t, c, i) }
	if err := c.SetLoss(ctx, 1, 25); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "peer packets dropped", func() error {
		if s := stats(1); s.LossPercent != 25 || s.LossDropped == 0 {
			return fmt.Errorf("%+v", s)
		}
		return nil
	})
	// Re-applying the same state (a partition heal applies every node's)
	// keeps the counters.
	seen := stats(1).LossSeen
	if err := c.Heal(ctx); err != nil {
		t.Fatal(err)
	}
	if s := stats(1); s.LossSeen < seen {
		t.Errorf("counters reset by a re-apply: seen %d, then %d", seen, s.LossSeen)
	}
	if err := c.Kill(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if s := stats(1); s.LossPercent != 25 {
		t.Errorf("after a restart: %+v, want the 25%% loss again", s)
	}
	if err := c.SetLoss(ctx, 1, 0); err != nil {
		t.Fatal(err)
	}
	if s := stats(1); s != (cluster.NetStats{}) {
		t.Errorf("after SetLoss 0: %+v", s)
	}
	if err := c.SetLoss(ctx, 1, 101); err == nil || !strings.Contains(err.Error(), "n2") {
		t.Errorf("SetLoss 101%% = %v, want an error naming n2", err)
	}
}

func testRate(t *testing.T, c cluster.Cluster) {
	ctx := context.Background()
	stats := func(i int) cluster.NetStats { t.Helper(); return netStats(t, c, i) }
	if err := c.SetRate(ctx, 0, 50_000); err != nil {
		t.Fatal(err)
	}
	first := stats(0)
	waitFor(t, 20*time.Second, "traffic through the tbf", func() error {
		if s := stats(0); s.Rate != 50_000 || s.RatePackets <= first.RatePackets {
			return fmt.Errorf("%+v after %+v", s, first)
		}
		return nil
	})
	if err := c.SetRate(ctx, 0, 0); err != nil {
		t.Fatal(err)
	}
	if s := stats(0); s.Rate != 0 || s.RateBytes != 0 {
		t.Errorf("after SetRate 0: %+v", s)
	}
}

func testStartAs(t *testing.T, c cluster.Cluster, dir string) {
	ctx := context.Background()
	if err := c.StartAs(ctx, 2, "n3-r1"); err == nil || !strings.Contains(err.Error(), "running") {
		t.Errorf("StartAs on a running node = %v", err)
	}
	if err := c.Stop(ctx, 2); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"n1", "n 3", ""} {
		if err := c.StartAs(ctx, 2, bad); err == nil || !strings.HasPrefix(err.Error(), "start n3 as "+bad+": ") {
			t.Errorf("StartAs(%q) = %v, want a refusal", bad, err)
		}
	}
	if err := c.StartAs(ctx, 2, "n3-r1"); err != nil {
		t.Fatal(err)
	}
	if n := c.Nodes()[2]; n.Name != "n3-r1" {
		t.Errorf("Nodes()[2] = %+v", n)
	}
	waitFor(t, 20*time.Second, "n3-r1 in /varz", func() error {
		if v, err := quick.Varz(ctx, c.Nodes()[2]); err != nil || v.ServerName != "n3-r1" {
			return fmt.Errorf("%+v %v", v, err)
		}
		return nil
	})
	conf, err := os.ReadFile(filepath.Join(dir, "config", "n3.conf"))
	if err != nil || !strings.Contains(string(conf), `server_name: "n3-r1"`) {
		t.Errorf("n3.conf: %s %v", conf, err)
	}
}
