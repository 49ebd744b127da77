package nemesis

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
)

// One test per data-loss fault, each on its own Docker cluster with the
// stream and writer of startReal: the window must be verified and the
// cluster recover. They run in parallel (each waits far more than it
// computes: on one cluster at a time the package averaged 16 % of 2 cores);
// run one alone with e.g.
//
//	go test -count=1 -run 'TestIntegrationDockerKillAll$' ./nemesis/ -v

// needDocker gates a test that starts a Docker cluster.
func needDocker(t *testing.T) {
	t.Helper()
	testenv.Require(t, testenv.Docker(docker.Available))
}

func dockerCluster(t *testing.T) *realCluster {
	t.Helper()
	needDocker(t)
	return startReal(t, docker.New(), cluster.Config{Nodes: 3, RunID: "nemesis-test"})
}

func logTiming(t *testing.T, tm timing) { t.Logf("docker runtime, hold %s: %s", itHold, tm) }

func TestIntegrationDockerKillMajority(t *testing.T) {
	t.Parallel()
	rc := dockerCluster(t)
	tm := rc.runOne(t, "kill-majority", 1)
	if n := len(strings.Split(tm.targets, ",")); n != 2 {
		t.Errorf("killed %s, want a majority of 2", tm.targets)
	}
	logTiming(t, tm)
}

func TestIntegrationDockerKillAll(t *testing.T) {
	t.Parallel()
	rc := dockerCluster(t)
	tm := rc.runOne(t, "kill-all", 1)
	if tm.targets != "n1,n2,n3" {
		t.Errorf("killed %s, want all", tm.targets)
	}
	logTiming(t, tm)
}

func TestIntegrationDockerRestartAll(t *testing.T) {
	t.Parallel()
	rc := dockerCluster(t)
	logTiming(t, rc.runOne(t, "restart-all", 1))
}

func TestIntegrationDockerPauseKill(t *testing.T) {
	t.Parallel()
	rc := dockerCluster(t)
	logTiming(t, rc.runOne(t, "pause-kill", 1))
}

// Each class of file on a cluster of its own. The fault must be verified:
// the file changed as recorded, the node started again with full routes.
// Whether the server then repairs its store is what the fault tests, so not
// recovering is logged as the finding, not failed.
func TestIntegrationDockerBitflip(t *testing.T)  { corruptEach(t, "bitflip") }
func TestIntegrationDockerTruncate(t *testing.T) { corruptEach(t, "truncate") }

func corruptEach(t *testing.T, mode string) {
	t.Parallel()
	needDocker(t)
	for i, class := range fileClasses {
		t.Run(class, func(t *testing.T) {
			t.Parallel()
			rc := dockerCluster(t)
			rc.recoveryIsAResult = true
			tm := rc.runOne(t, mode+"="+class, uint64(i))
			if !tm.recovered {
				t.Logf("FINDING: the cluster did not recover from %s=%s", mode, class)
			}
			logTiming(t, tm)
		})
	}
}

// The replaced server's new name is in the node list and the stream's
// peers; the old one is in neither.
func TestIntegrationDockerMemberReplace(t *testing.T) {
	t.Parallel()
	rc := dockerCluster(t)
	before := rc.env.allNames()
	tm := rc.runOne(t, "member-replace", 1)
	after := rc.env.allNames()
	old := tm.targets
	i := slices.Index(before, old)
	if i < 0 || after[i] != old+"-r1" {
		t.Fatalf("nodes %v -> %v: want %s renamed %s-r1", before, after, old, old)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := rc.js.Stream(ctx, itStream)
	if err != nil {
		t.Fatal(err)
	}
	ci := s.CachedInfo().Cluster
	peers := []string{ci.Leader}
	for _, r := range ci.Replicas {
		peers = append(peers, r.Name)
	}
	if slices.Contains(peers, old) || !slices.Contains(peers, old+"-r1") {
		t.Errorf("stream peers %v: want %s-r1 instead of %s", peers, old, old)
	}
	logTiming(t, tm)
}

// The drop rule drops about the asked share of the peer traffic it sees.
func TestIntegrationDockerLoss(t *testing.T) {
	t.Parallel()
	rc := dockerCluster(t)
	var st cluster.NetStats
	tm := rc.runObserved(t, "loss=20%", 1, func(a Active) {
		// Let traffic through the rules until the sample is large enough
		// to judge the share (an idle cluster sends ~50 peer packets a
		// second, fewer on a loaded machine: a fixed wait once saw 98).
		i := rc.env.index(a.Targets()[0])
		for deadline := time.Now().Add(20 * time.Second); ; {
			time.Sleep(250 * time.Millisecond)
			var err error
			if st, err = rc.c.NetStats(context.Background(), i); err != nil {
				t.Errorf("stats: %v", err)
				return
			}
			if st.LossSeen >= 150 || time.Now().After(deadline) {
				return
			}
		}
	})
	share := float64(st.LossDropped) / float64(max(st.LossSeen, 1))
	t.Logf("while held: %s", dropped(st))
	if st.LossPercent != 20 || st.LossSeen < 100 || share < 0.10 || share > 0.30 {
		t.Errorf("stats %+v: want 20%% in force and about a fifth of at least 100 peer packets dropped", st)
	}
	logTiming(t, tm)
}

// A burst published through the limited node must wait for tokens: the
// node forwards it to the stream leader, or as the leader replicates it.
func TestIntegrationDockerBandwidth(t *testing.T) {
	t.Parallel()
	rc := dockerCluster(t)
	var before, after cluster.NetStats
	tm := rc.runObserved(t, "bandwidth=200kbit", 1, func(a Active) {
		ctx := context.Background()
		i := rc.env.index(a.Targets()[0])
		var err error
		if before, err = rc.c.NetStats(ctx, i); err != nil {
			t.Errorf("stats: %v", err)
			return
		}
		nc, err := nats.Connect(rc.c.Nodes()[i].ClientURL)
		if err != nil {
			t.Errorf("connect to %s: %v", a.Targets()[0], err)
			return
		}
		defer nc.Close()
		payload := make([]byte, 4096)
		for range 64 { // 256 KiB, ten seconds' worth at 25 KB/s
			nc.Publish("chaos.burst", payload)
		}
		nc.Flush()
		time.Sleep(time.Second)
		if after, err = rc.c.NetStats(ctx, i); err != nil {
			t.Errorf("stats: %v", err)
		}
	})
	t.Logf("before the burst: %s; after: %s", throughput(before), throughput(after))
	if after.Rate != 25000 || after.RateOverlimits <= before.RateOverlimits || after.RateBytes <= before.RateBytes {
		t.Errorf("stats %+v -> %+v: want 25000 bytes/s in force and the burst held back", before, after)
	}
	logTiming(t, tm)
}
