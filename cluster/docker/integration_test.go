package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/lazyfs"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Integration tests: real 3-node clusters. One cluster is shared by the
// control subtests (2 cores are shared with others); each subtest leaves it
// healthy for the next. The tests that start clusters run in parallel (they
// mostly wait) and check for leftovers of their own cluster alone;
// TestIntegrationStartFailureCleansUp and TestIntegrationSweep do not, as
// they look at everything this process owns.

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && !testing.Short() && Available(context.Background()) == nil {
		if err := checkNoLeftovers(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL: leftovers after the tests:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// checkNoLeftovers: no container or network this process created remains,
// every image of ours is a tagged node image (no dangling ones), and
// testcontainers started no Ryuk and made no fallback network.
func checkNoLeftovers(ctx context.Context) error {
	return checkLeftovers(ctx, labelOwner+"="+selfOwner, "")
}

// checkClusterLeftovers is checkNoLeftovers for one closed cluster: its
// containers, networks and mounts, while other tests' clusters run.
func checkClusterLeftovers(ctx context.Context, c cluster.Cluster) error {
	dc := c.(*dockerCluster)
	return checkLeftovers(ctx, labelCluster+"="+dc.id, dc.cfg.Dir)
}

// checkLeftovers looks for containers and networks with label, and for
// our mounts: under dir, or, with no dir, any this process made.
func checkLeftovers(ctx context.Context, label, dir string) error {
	cli, err := newClient()
	if err != nil {
		return err
	}
	defer cli.Close()
	mine := make(client.Filters).Add("label", label)
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: mine})
	if err != nil {
		return err
	}
	ns, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: mine})
	if err != nil {
		return err
	}
	// Not Sweep's count: it also removes other killed runs' leftovers.
	if len(cs.Items)+len(ns.Items) > 0 {
		return fmt.Errorf("%d containers and %d networks", len(cs.Items), len(ns.Items))
	}
	ms, err := lazyfs.Mounts()
	if err != nil {
		return err
	}
	for _, m := range ms {
		if dir == "" && m.Owner == selfOwner || dir != "" && strings.HasPrefix(m.Mountpoint, dir+string(filepath.Separator)) {
			return fmt.Errorf("store still mounted at %s", m.Mountpoint)
		}
	}
	ryuk, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", "org.testcontainers.ryuk=true")})
	if err != nil {
		return err
	}
	fallback, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: make(client.Filters).Add("name", "reaper_default")})
	if err != nil {
		return err
	}
	if len(ryuk.Items)+len(fallback.Items) > 0 {
		return fmt.Errorf("testcontainers made %d Ryuk containers and %d reaper_default networks", len(ryuk.Items), len(fallback.Items))
	}
	imgs, err := cli.ImageList(ctx, client.ImageListOptions{Filters: make(client.Filters).Add("label", LabelKey+"="+imageValue)})
	if err != nil {
		return err
	}
	for _, im := range imgs.Items {
		if len(im.RepoTags) == 0 || !strings.HasPrefix(im.RepoTags[0], ImageRepo+":") {
			return fmt.Errorf("image %s has tags %v", im.ID, im.RepoTags)
		}
	}
	return nil
}

func needDocker(t testing.TB) {
	t.Helper()
	testenv.Require(t, testenv.Docker(Available))
}

func startCluster(t testing.TB, cfg cluster.Config) cluster.Cluster {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	c, err := New().Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return c
}

// createStream creates a stream, asking again within 30 s when the API
// did not answer in time: a new R3 stream's raft group can take longer
// than one request's timeout to form on a loaded machine, and creating the
// same config twice is idempotent.
func createStream(t testing.TB, js jetstream.JetStream, cfg jetstream.StreamConfig) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = js.CreateStream(ctx, cfg)
		cancel()
		if err == nil || !errors.Is(err, context.DeadlineExceeded) {
			break
		}
	}
	if err != nil {
		t.Fatalf("create stream %s: %v", cfg.Name, err)
	}
}

func waitFor(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s: %v", what, timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func connect(t testing.TB, nodes ...cluster.Node) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	var urls []string
	for _, n := range nodes {
		urls = append(urls, n.ClientURL)
	}
	// Never dial the container addresses the servers advertise.
	nc, err := nats.Connect(strings.Join(urls, ","), nats.IgnoreDiscoveredServers(),
		nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

func publish(t testing.TB, js jetstream.JetStream, subject string, n int, payload []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i := range n {
		for try := 0; ; try++ { // an election after a fault can time a publish out
			if _, err := js.Publish(ctx, subject, payload); err == nil {
				break
			} else if try == 20 {
				t.Fatalf("publish %d: %v", i, err)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
}

// lastSeqs reads the stream's last sequence from each node's own /jsz.
func lastSeqs(nodes []cluster.Node, stream string) ([]uint64, error) {
	out := make([]uint64, len(nodes))
	for i, n := range nodes {
		s, ok, err := quick.LocalStream(context.Background(), n, stream)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.Name, err)
		}
		if !ok {
			return nil, fmt.Errorf("%s has no replica of %s", n.Name, stream)
		}
		out[i] = s.State.LastSeq
	}
	return out, nil
}

// quick reads the monitoring endpoints within a second.
var quick = cluster.Monitor{Timeout: time.Second}

func peers(t testing.TB, n cluster.Node) []string {
	r, err := cluster.GetRoutez(context.Background(), n)
	if err != nil {
		t.Fatalf("%s /routez: %v", n.Name, err)
	}
	return r.Peers()
}

func TestIntegrationStartFailureCleansUp(t *testing.T) {
	needDocker(t)
	dir := t.TempDir()
	rt := &Runtime{ReadyTimeout: time.Millisecond} // cannot be ready that fast
	_, err := rt.Start(context.Background(), cluster.Config{Dir: dir, RunID: "fail"})
	if err == nil || !strings.Contains(err.Error(), "not ready") || !strings.Contains(err.Error(), "log:") {
		t.Fatalf("Start = %v, want a readiness error with a log tail", err)
	}
	t.Logf("Start: %v", err)
	if _, err := os.Stat(filepath.Join(dir, "logs", "n1.log")); err != nil {
		t.Errorf("logs not saved: %v", err)
	}
	if err := checkNoLeftovers(context.Background()); err != nil {
		t.Error(err)
	}
}

func TestIntegrationControls(t *testing.T) {
	t.Parallel()
	needDocker(t)
	ctx := context.Background()
	dir := t.TempDir()
	c := startCluster(t, cluster.Config{
		Dir: dir, RunID: "controls", AutoRestart: true,
		MemoryLimit: 512 << 20, MaxMemoryStore: 256 << 20, // GOMEMLIMIT=80 % of 512 MiB
	})
	nodes := c.Nodes()
	_, js := connect(t, nodes...)
	createStream(t, js, jetstream.StreamConfig{Name: "FILE", Subjects: []string{"file.>"}, Replicas: 3})
	publish(t, js, "file.a", 50, []byte("hello"))

	t.Run("Record", func(t *testing.T) {
		conf, err := os.ReadFile(filepath.Join(dir, "config", "n2.conf"))
		if err != nil || !strings.Contains(string(conf), `"nats-route://n3:6222"`) || !strings.Contains(string(conf), `store_dir: "/data"`) {
			t.Errorf("n2.conf = %q, %v", conf, err)
		}
		for _, n := range nodes {
			if !strings.HasPrefix(n.ClientURL, "nats://127.0.0.1:") || !strings.HasPrefix(n.MonitorURL, "http://127.0.0.1:") {
				t.Errorf("%s URLs %s %s: want 127.0.0.1", n.Name, n.ClientURL, n.MonitorURL)
			}
		}
		dc := c.(*dockerCluster)
		st, err := dc.inspect(ctx, dc.nodes[0])
		if err != nil {
			t.Fatal(err)
		}
		if hc := st.HostConfig; hc == nil || hc.Memory != 512<<20 || hc.MemorySwap != 512<<20 || hc.RestartPolicy.Name != "on-failure" {
			t.Errorf("host config %+v: want a 512 MiB limit, no swap, restart on failure", hc)
		}
		if env := strings.Join(st.Config.Env, " "); !strings.Contains(env, fmt.Sprintf("GOMEMLIMIT=%d", (512<<20)/10*8)) {
			t.Errorf("env %q lacks GOMEMLIMIT at 80 %% of the limit", env)
		}
		checkRequest(t, dc, 0, st)
		if err := c.Supports(cluster.CapLatency); err == nil {
			t.Error("latency is not implemented but Supports says yes")
		}
	})

	t.Run("Memory", func(t *testing.T) {
		const samples = 200
		start := time.Now()
		var v int64
		for range samples {
			var err error
			if v, err = c.Memory(ctx, 0); err != nil {
				t.Fatal(err)
			}
		}
		per := time.Since(start) / samples
		t.Logf("Memory(n1) = %d MiB, %s per sample", v>>20, per)
		if v < 4<<20 || v > 512<<20 {
			t.Errorf("Memory = %d bytes, want between 4 MiB and the 512 MiB limit", v)
		}
		if per > 50*time.Millisecond {
			t.Errorf("Memory takes %s per sample: too slow to sample 4 times a second per node", per)
		}
	})

	t.Run("KillRestart", func(t *testing.T) {
		if err := c.Kill(ctx, 2); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second) // AutoRestart must not restart a kill we asked for
		st, err := c.State(ctx, 2)
		if err != nil || st.Running || st.ExitCode != 137 || st.OOMKilled || st.Restarts != 0 {
			t.Fatalf("after Kill: %+v, %v; want down, exit 137, no restart", st, err)
		}
		if cluster.Healthy(ctx, nodes[2]) == nil {
			t.Fatal("n3 answers /healthz while killed")
		}
		if err := c.Start(ctx, 2); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 60*time.Second, "cluster ready after restart", func() error {
			return cluster.WaitReady(ctx, c, 5*time.Second)
		})
		st2, _ := c.State(ctx, 2)
		if !st2.Running || !st2.StartedAt.After(st.StartedAt) || st2.Restarts != 0 {
			t.Errorf("after Start: %+v (before %+v)", st2, st)
		}
		if c.Nodes()[2] != nodes[2] {
			t.Errorf("URLs changed across a restart: %+v -> %+v", nodes[2], c.Nodes()[2])
		}
	})

	t.Run("PauseResume", func(t *testing.T) {
		if err := c.Pause(ctx, 1); err != nil {
			t.Fatal(err)
		}
		st, _ := c.State(ctx, 1)
		if !st.Paused {
			t.Errorf("State after Pause: %+v", st)
		}
		if _, err := quick.Varz(ctx, nodes[1]); err == nil {
			t.Error("n2's monitor answered while paused")
		}
		if err := c.Resume(ctx, 1); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 10*time.Second, "n2 monitor after Resume", func() error { _, err := quick.Varz(ctx, nodes[1]); return err })
		if st, _ := c.State(ctx, 1); st.Paused || !st.Running {
			t.Errorf("State after Resume: %+v", st)
		}
		waitFor(t, 30*time.Second, "cluster ready after resume", func() error { return cluster.WaitReady(ctx, c, 5*time.Second) })
	})

	t.Run("WipeCatchUp", func(t *testing.T) {
		if err := c.Wipe(ctx, 1); err == nil {
			t.Fatal("Wipe of a running node succeeded")
		}
		if err := c.Stop(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if err := c.Wipe(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if ents, err := os.ReadDir(filepath.Join(dir, "data", "n2")); err != nil || len(ents) != 0 {
			t.Fatalf("n2's store after Wipe: %v entries, %v", len(ents), err)
		}
		publish(t, js, "file.b", 200, []byte("while n2 was away"))
		// The leader's last sequence, through the API: it applied every
		// message it acknowledged. n1's own /jsz read here trailed it by one
		// once (249 of 250: the ack waits for n1's log, not its apply).
		info, err := js.Stream(ctx, "FILE")
		if err != nil {
			t.Fatal(err)
		}
		want := []uint64{info.CachedInfo().State.LastSeq}
		if err := c.Start(ctx, 1); err != nil {
			t.Fatal(err)
		}
		// Agreement on three reads in a row, not a single lucky answer.
		agreed := 0
		waitFor(t, 60*time.Second, "all replicas at the same last sequence", func() error {
			seqs, err := lastSeqs(nodes, "FILE")
			if err != nil || seqs[0] != want[0] || seqs[1] != want[0] || seqs[2] != want[0] {
				agreed = 0
				return fmt.Errorf("last seqs %v, want all %d: %v", seqs, want[0], err)
			}
			if agreed++; agreed < 3 {
				return fmt.Errorf("agreed %d times", agreed)
			}
			return nil
		})
		if want[0] != 250 {
			t.Errorf("last sequence %d, want 250 published", want[0])
		}
	})

	t.Run("PartitionHeal", func(t *testing.T) {
		began := time.Now()
		if err := c.Partition(ctx, [][]int{{0, 1}, {2}}); err != nil {
			t.Fatal(err)
		}
		t.Logf("Partition took %s (netfault in every node)", time.Since(began).Round(time.Millisecond))
		cut := func() error { // routes gone on both sides
			if p := peers(t, nodes[2]); len(p) != 0 {
				return fmt.Errorf("n3 still routes to %v", p)
			}
			for _, n := range nodes[:2] {
				if p := peers(t, n); len(p) != 1 {
					return fmt.Errorf("%s routes to %v, want only its side", n.Name, p)
				}
			}
			return nil
		}
		began = time.Now()
		waitFor(t, 15*time.Second, "routes drop", cut)
		t.Logf("routes dropped on both sides %s after Partition", time.Since(began).Round(100*time.Millisecond))
		// Clients still reach the cut-off node through its published port.
		nc3, err := nats.Connect(nodes[2].ClientURL, nats.IgnoreDiscoveredServers())
		if err != nil {
			t.Fatalf("client cannot reach n3 during the partition: %v", err)
		}
		if err := nc3.FlushTimeout(2 * time.Second); err != nil {
			t.Errorf("flush to n3 during the partition: %v", err)
		}
		nc3.Close()
		// A restarted node gets a new network namespace: the cut must return.
		if err := c.Kill(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if err := c.Start(ctx, 2); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, "n3 up again", func() error { _, err := quick.Varz(ctx, nodes[2]); return err })
		time.Sleep(4 * time.Second) // routes would be up by now if nothing blocked them
		if err := cut(); err != nil {
			t.Fatalf("partition lost across a restart: %v", err)
		}
		if err := c.Heal(ctx); err != nil {
			t.Fatal(err)
		}
		began = time.Now()
		waitFor(t, 30*time.Second, "routes return", func() error {
			for _, n := range nodes {
				if p := peers(t, n); len(p) != 2 {
					return fmt.Errorf("%s routes to %v", n.Name, p)
				}
			}
			return nil
		})
		t.Logf("routes back %s after Heal", time.Since(began).Round(100*time.Millisecond))
		waitFor(t, 60*time.Second, "cluster ready after heal", func() error { return cluster.WaitReady(ctx, c, 5*time.Second) })
	})

	t.Run("OOM", func(t *testing.T) {
		// GOMEMLIMIT stays at 80 % of 512 MiB (it cannot follow a new limit),
		// so the Go runtime does not hold back and the kernel kills.
		// Right after a heal the meta leader may still count the node
		// restarted during the partition as offline ("no suitable peers").
		waitFor(t, 30*time.Second, "create MEM", func() error {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err := js.CreateStream(cctx, jetstream.StreamConfig{Name: "MEM", Subjects: []string{"mem.>"}, Replicas: 3, Storage: jetstream.MemoryStorage})
			return err
		})
		// n1 must neither lead MEM nor carry the client: a node near its
		// limit is not killed at once, the kernel first reclaims its file
		// pages (its binary), and every publish through it then waits (one
		// run here sent 51 MiB in 90 s, none killed). As a follower it
		// stores what n2 and n3 acknowledge, later than they do when it
		// slows (another run: 250 MiB acknowledged in 20 s, n1 not yet
		// killed), so the test then waits for it to apply them.
		nc, js := connect(t, nodes[1], nodes[2])
		waitFor(t, 30*time.Second, "MEM led by another node than n1", func() error {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			s, err := js.Stream(cctx, "MEM")
			if err != nil {
				return err
			}
			if l := s.CachedInfo().Cluster; l == nil || l.Leader == "" || l.Leader == nodes[0].Name {
				_, _ = nc.Request("$JS.API.STREAM.LEADER.STEPDOWN.MEM", nil, 5*time.Second)
				return fmt.Errorf("leader %+v", l)
			}
			return nil
		})
		if err := c.SetMemoryLimit(ctx, 0, 80<<20); err != nil {
			t.Fatal(err)
		}
		payload := make([]byte, 64<<10)
		// 90 s to send, then up to 3 minutes more for the kill: a node at
		// its limit first thrashes (the kernel reclaims its file pages and
		// it applies slowly) before the kernel kills it; a clean-clone CI
		// run saw no kill 90 s after 250 MiB were acknowledged, and the
		// catch-up workload's node once thrashed 122 s before its kill.
		deadline := time.Now().Add(90 * time.Second)
		killBy := deadline.Add(3 * time.Minute)
		var st cluster.NodeState
		acked, sent, lastErr := 0, 0, error(nil)
		for {
			var err error
			if st, err = c.State(ctx, 0); err != nil {
				t.Fatal(err)
			}
			if st.OOMKills > 0 {
				break
			}
			if now := time.Now(); now.After(killBy) || (now.After(deadline) && acked < 4000) {
				t.Fatalf("no OOM kill within %s of %d MiB sent, %d MiB acknowledged (last error: %v): %+v",
					now.Sub(deadline.Add(-90*time.Second)).Round(time.Second), sent*len(payload)>>20, acked*len(payload)>>20, lastErr, st)
			}
			if acked >= 4000 { // 250 MiB: n1 is still applying it, or behind
				time.Sleep(250 * time.Millisecond)
				continue
			}
			sent++
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			if _, err := js.Publish(pctx, "mem.x", payload); err != nil {
				lastErr = err // expected once n1 dies
			} else {
				acked++
			}
			cancel()
		}
		t.Logf("n1 after the OOM kill: %+v", st)
		if st.Restarts < 1 && !st.OOMKilled {
			waitFor(t, 10*time.Second, "OOMKilled or an automatic restart", func() error {
				if st, _ = c.State(ctx, 0); st.OOMKilled || st.Restarts > 0 {
					return nil
				}
				return fmt.Errorf("%+v", st)
			})
		}
		// Stop the crash loop: lift the limit, drop the memory stream.
		if err := c.SetMemoryLimit(ctx, 0, 0); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 60*time.Second, "drop MEM", func() error {
			dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			return js.DeleteStream(dctx, "MEM")
		})
		if err := c.Start(ctx, 0); err != nil { // in case it is down between restarts
			t.Fatal(err)
		}
		waitFor(t, 90*time.Second, "cluster ready after the OOM", func() error { return cluster.WaitReady(ctx, c, 5*time.Second) })
	})

	t.Run("Close", func(t *testing.T) {
		if err := c.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(ctx); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		for _, n := range nodes {
			b, err := os.ReadFile(filepath.Join(dir, "logs", n.Name+".log"))
			if err != nil || !strings.Contains(string(b), "Server is ready") {
				t.Errorf("%s.log: %d bytes, %v", n.Name, len(b), err)
			}
		}
		if err := checkClusterLeftovers(ctx, c); err != nil {
			t.Error(err)
		}
		checkImage(t, c.(*dockerCluster).image)
	})
}

// checkRequest: what createNode asks testcontainers for is what the daemon
// made of node i.
func checkRequest(t *testing.T, dc *dockerCluster, i int, st container.InspectResponse) {
	t.Helper()
	n := dc.nodes[i]
	if st.Name != "/"+n.container || st.Config.Image != dc.image || st.Config.Hostname != n.slot ||
		st.Config.User != fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()) ||
		strings.Join(st.Config.Cmd, " ") != "-c "+confPath {
		t.Errorf("name %q image %q hostname %q user %q cmd %q", st.Name, st.Config.Image, st.Config.Hostname, st.Config.User, st.Config.Cmd)
	}
	l := st.Config.Labels
	if l[LabelKey] != runValue || l[labelOwner] != selfOwner || l[labelCluster] != dc.id || l[labelNode] != n.slot {
		t.Errorf("labels %v: want ours", l)
	}
	if l["org.testcontainers"] != "true" || l["org.testcontainers.reap"] != "" {
		t.Errorf("labels %v: want made by testcontainers, not for Ryuk", l)
	}
	hc := st.HostConfig
	netAdmin := func(c string) bool { return strings.TrimPrefix(c, "CAP_") == "NET_ADMIN" } // 20.10 adds CAP_
	if !slices.ContainsFunc(hc.CapAdd, netAdmin) || string(hc.NetworkMode) != dc.netName ||
		!slices.Contains(hc.Binds, filepath.Join(dc.cfg.Dir, "config", n.slot+".conf")+":"+confPath+":ro") {
		t.Errorf("caps %v network mode %q binds %v", hc.CapAdd, hc.NetworkMode, hc.Binds)
	}
	for port, want := range map[uint16]int{clientPort: n.clientPort, monitorPort: n.monitorPort} {
		p, _ := network.PortFrom(port, network.TCP)
		if b := hc.PortBindings[p]; len(b) != 1 || b[0].HostIP != loopback || b[0].HostPort != fmt.Sprint(want) {
			t.Errorf("port %d published as %+v, want 127.0.0.1:%d", port, b, want)
		}
	}
	if ep := st.NetworkSettings.Networks[dc.netName]; ep == nil || !slices.Contains(ep.Aliases, n.slot) {
		t.Errorf("on %s: %+v, want the alias %s", dc.netName, ep, n.slot)
	}
}

// checkImage: the node image outlives the containers testcontainers
// terminated (it deletes only images it built).
func checkImage(t *testing.T, tag string) {
	t.Helper()
	cli, err := newClient()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(context.Background(), tag); err != nil {
		t.Errorf("the node image %s is gone after Close: %v", tag, err)
	}
}

// TestIntegrationCloseInAnyState: Close removes paused, killed and running nodes, and
// keeps the image.
func TestIntegrationCloseInAnyState(t *testing.T) {
	t.Parallel()
	needDocker(t)
	ctx := context.Background()
	dir := t.TempDir()
	c, err := New().Start(ctx, cluster.Config{Dir: dir, RunID: "close"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Pause(ctx, 0); err != nil {
		t.Error(err)
	}
	if err := c.Kill(ctx, 1); err != nil {
		t.Error(err)
	}
	began := time.Now()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %s", time.Since(began).Round(time.Millisecond))
	for _, n := range c.Nodes() {
		if b, err := os.ReadFile(filepath.Join(dir, "logs", n.Name+".log")); err != nil || !strings.Contains(string(b), "Server is ready") {
			t.Errorf("%s.log: %d bytes, %v", n.Name, len(b), err)
		}
	}
	if err := checkClusterLeftovers(ctx, c); err != nil {
		t.Error(err)
	}
	checkImage(t, c.(*dockerCluster).image)
}

func TestIntegrationSweep(t *testing.T) {
	needDocker(t)
	ctx := context.Background()
	cli, err := newClient()
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	mk := func(name, owner string) string {
		r, err := cli.NetworkCreate(ctx, name, client.NetworkCreateOptions{Driver: "bridge",
			Labels: map[string]string{LabelKey: runValue, labelOwner: owner}})
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	dead := mk("jschaos-sweeptest-dead-"+randomHex(3), hostname()+"/999999999/1")
	live := mk("jschaos-sweeptest-live-"+randomHex(3), ownerOf(os.Getppid()))
	defer cli.NetworkRemove(ctx, live, client.NetworkRemoveOptions{})
	n, err := Sweep(ctx)
	if err != nil || n < 1 {
		t.Fatalf("Sweep = %d, %v; want at least the dead run's network", n, err)
	}
	if _, err := cli.NetworkInspect(ctx, dead, client.NetworkInspectOptions{}); !isNotFound(err) {
		t.Errorf("a killed run's network survived Sweep: %v", err)
	}
	if _, err := cli.NetworkInspect(ctx, live, client.NetworkInspectOptions{}); err != nil {
		t.Errorf("Sweep removed a live process's network: %v", err)
	}
}

// TestIntegrationTmpfsStore shows what StoreOnTmpfs means: the store lives as long as
// the container runs, so a stop loses it. One node keeps it cheap.
func TestIntegrationTmpfsStore(t *testing.T) {
	t.Parallel()
	needDocker(t)
	ctx := context.Background()
	dir := t.TempDir()
	c := startCluster(t, cluster.Config{Dir: dir, Nodes: 1, StoreOnTmpfs: true, RunID: "tmpfs"})
	_, js := connect(t, c.Nodes()...)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t"}}); err != nil {
		t.Fatal(err)
	}
	publish(t, js, "t", 10, []byte("x"))
	if _, err := os.Stat(filepath.Join(dir, "data", "n1")); !os.IsNotExist(err) {
		t.Errorf("a host store dir exists with StoreOnTmpfs: %v", err)
	}
	if err := c.Stop(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx, 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "ready", func() error { return cluster.WaitReady(ctx, c, 5*time.Second) })
	ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := js.Stream(ictx, "T"); err == nil {
		t.Error("the stream survived a stop on tmpfs")
	}
}
