package local

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
)

// needProcesses gates a test that runs nats-server processes.
func needProcesses(t *testing.T) {
	t.Helper()
	testenv.Require(t, testenv.Processes(serverbin.Path))
}

// startCluster starts a real cluster and registers its teardown, which
// checks that no process the cluster ever ran is left.
func startCluster(t *testing.T, cfg cluster.Config) (*Cluster, func(int)) {
	t.Helper()
	needProcesses(t)
	ctx := context.Background()
	cfg.Dir = t.TempDir()
	t0 := time.Now()
	cl, err := New().Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := cl.(*Cluster)
	t.Logf("%d-node cluster ready in %s", len(c.nodes), time.Since(t0).Round(time.Millisecond))
	pids := map[int]bool{}
	track := func(i int) {
		if p := c.PID(i); p != 0 {
			pids[p] = true
		}
	}
	for i := range c.nodes {
		track(i)
	}
	t.Cleanup(func() {
		for i := range c.nodes { // pids started by auto-restart too
			track(i)
		}
		if t.Failed() {
			for _, n := range c.nodes {
				t.Logf("%s:\n%s", n.log, n.tail(30))
			}
		}
		t0 := time.Now()
		if err := c.Close(ctx); err != nil {
			t.Error(err)
		}
		t.Logf("teardown in %s", time.Since(t0).Round(time.Millisecond))
		if err := c.Close(ctx); err != nil {
			t.Errorf("second Close: %v", err)
		}
		for p := range pids {
			if !gone(p) {
				t.Errorf("nats-server pid %d still exists after Close", p)
			}
		}
		if err := c.Start(ctx, 0); err == nil {
			t.Error("Start after Close succeeded")
		}
	})
	return c, track
}

// gone: no such process, not even a zombie (so it was reaped).
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

func eventually(t *testing.T, d time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s: %v", what, d, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// streamOn is one server's own state of a stream, from its /jsz.
func streamOn(n cluster.Node, stream string) (cluster.StreamState, error) {
	s, ok, err := cluster.Monitor{Timeout: time.Second}.LocalStream(context.Background(), n, stream)
	if err == nil && !ok {
		err = fmt.Errorf("%s has no stream %s", n.Name, stream)
	}
	return s.State, err
}

func wantOn(n cluster.Node, stream string, msgs uint64) error {
	s, err := streamOn(n, stream)
	if err != nil {
		return err
	}
	if s.Msgs != msgs || s.LastSeq != msgs {
		return fmt.Errorf("%s has %d messages, last seq %d; want %d", n.Name, s.Msgs, s.LastSeq, msgs)
	}
	return nil
}

// publish sends messages from..to-1 with message ids, retrying each until
// acknowledged, so a retry after an indeterminate timeout is deduplicated.
func publish(t *testing.T, js jetstream.JetStream, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		eventually(t, 20*time.Second, fmt.Sprintf("publish %d", i), func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err := js.Publish(ctx, "t.x", []byte(fmt.Sprint(i)), jetstream.WithMsgID(fmt.Sprintf("m%d", i)))
			return err
		})
	}
}

func TestIntegrationClusterControls(t *testing.T) {
	c, track := startCluster(t, cluster.Config{RunID: "local-test"})
	ctx := context.Background()
	nodes := c.Nodes()

	urls := make([]string, len(nodes))
	for i, n := range nodes {
		urls[i] = n.ClientURL
	}
	nc, err := nats.Connect(strings.Join(urls, ","), nats.IgnoreDiscoveredServers(),
		nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := js.CreateStream(sctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"},
		Replicas: 3, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	publish(t, js, 0, 50)
	total := uint64(50)
	for _, n := range nodes {
		eventually(t, 10*time.Second, "all replicas have 50", func() error { return wantOn(n, "T", 50) })
	}

	t.Run("record", func(t *testing.T) {
		for i, n := range nodes {
			conf, err := os.ReadFile(ConfigPath(c.Config().Dir, n.Name))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{
				fmt.Sprintf(`listen: "127.0.0.1:%d"`, c.nodes[i].ports.Client),
				fmt.Sprintf(`http: "127.0.0.1:%d"`, c.nodes[i].ports.Monitor),
				StoreDir(c.Config().Dir, n.Name),
			} {
				if !strings.Contains(string(conf), want) {
					t.Errorf("%s config lacks %q", n.Name, want)
				}
			}
			if !strings.HasSuffix(n.ClientURL, fmt.Sprint(c.nodes[i].ports.Client)) {
				t.Errorf("%s client URL %s", n.Name, n.ClientURL)
			}
			log, _ := os.ReadFile(LogPath(c.Config().Dir, n.Name))
			if !strings.Contains(string(log), "Server is ready") {
				t.Errorf("%s log lacks the server's own output", n.Name)
			}
		}
	})

	t.Run("memory", func(t *testing.T) {
		for i := range nodes {
			m, err := c.Memory(ctx, i)
			if err != nil || m < 4<<20 || m > 2<<30 {
				t.Errorf("Memory(%d) = %d, %v", i, m, err)
			}
			v, err := cluster.GetVarz(ctx, nodes[i])
			if err != nil {
				t.Fatal(err)
			}
			if ratio := float64(m) / float64(v.Mem); ratio < 0.5 || ratio > 2 {
				t.Errorf("Memory(%d) = %d but /varz mem = %d", i, m, v.Mem)
			}
		}
		t0 := time.Now()
		for range 100 {
			if _, err := c.Memory(ctx, 0); err != nil {
				t.Fatal(err)
			}
		}
		if d := time.Since(t0); d > 250*time.Millisecond {
			t.Errorf("100 Memory samples took %s", d)
		}
	})

	t.Run("kill and restart", func(t *testing.T) {
		old := c.PID(1)
		if err := c.Kill(ctx, 1); err != nil {
			t.Fatal(err)
		}
		st, _ := c.State(ctx, 1)
		if st.Running || st.ExitCode != 137 || !gone(old) || c.PID(1) != 0 {
			t.Fatalf("after Kill: %+v, pid %d gone=%v", st, old, gone(old))
		}
		if _, err := c.Memory(ctx, 1); !errors.Is(err, ErrNotRunning) {
			t.Errorf("Memory of a killed node = %v", err)
		}
		if _, err := cluster.GetVarz(ctx, nodes[1]); err == nil {
			t.Error("killed node's monitor answers")
		}
		publish(t, js, int(total), int(total)+20) // two of three replicas are a quorum
		total += 20
		if err := c.Start(ctx, 1); err != nil {
			t.Fatal(err)
		}
		track(1)
		st, _ = c.State(ctx, 1)
		if !st.Running || st.Paused || st.ExitCode != 0 || st.Restarts != 0 || c.PID(1) == old || time.Since(st.StartedAt) > time.Minute {
			t.Fatalf("after Start: %+v pid %d (was %d)", st, c.PID(1), old)
		}
		if nodes[1] != c.Nodes()[1] {
			t.Errorf("URLs changed across a restart: %v -> %v", nodes[1], c.Nodes()[1])
		}
		eventually(t, 20*time.Second, "restarted n2 has every message", func() error { return wantOn(nodes[1], "T", total) })
	})

	t.Run("stop is graceful", func(t *testing.T) {
		old := c.PID(2)
		t0 := time.Now()
		if err := c.Stop(ctx, 2); err != nil {
			t.Fatal(err)
		}
		st, _ := c.State(ctx, 2)
		if st.Running || st.ExitCode != 0 || !gone(old) {
			t.Fatalf("after Stop (%s): %+v", time.Since(t0), st)
		}
		if err := c.Stop(ctx, 2); !errors.Is(err, ErrNotRunning) {
			t.Errorf("second Stop = %v", err)
		}
		if err := c.Start(ctx, 2); err != nil {
			t.Fatal(err)
		}
		track(2)
		if err := c.Start(ctx, 2); !errors.Is(err, ErrRunning) {
			t.Errorf("Start of a running node = %v", err)
		}
		eventually(t, 20*time.Second, "restarted n3 has every message", func() error { return wantOn(nodes[2], "T", total) })
	})

	t.Run("pause and resume", func(t *testing.T) {
		if err := c.Pause(ctx, 2); err != nil {
			t.Fatal(err)
		}
		st, _ := c.State(ctx, 2)
		if !st.Running || !st.Paused {
			t.Fatalf("after Pause: %+v", st)
		}
		if s := procState(c.PID(2)); s != 'T' {
			t.Errorf("paused process is in state %q", s)
		}
		short, cancel := context.WithTimeout(ctx, 700*time.Millisecond)
		_, err := cluster.GetVarz(short, nodes[2])
		cancel()
		if err == nil {
			t.Fatal("paused node's monitor answered")
		}
		if err := c.Resume(ctx, 2); err != nil {
			t.Fatal(err)
		}
		st, _ = c.State(ctx, 2)
		if !st.Running || st.Paused {
			t.Fatalf("after Resume: %+v", st)
		}
		eventually(t, 5*time.Second, "resumed node's monitor answers", func() error {
			_, err := cluster.GetVarz(ctx, nodes[2])
			return err
		})
	})

	t.Run("wipe and catch up", func(t *testing.T) {
		if err := c.Wipe(ctx, 0); !errors.Is(err, ErrRunning) {
			t.Fatalf("Wipe of a running node = %v", err)
		}
		if err := c.Kill(ctx, 0); err != nil {
			t.Fatal(err)
		}
		store := StoreDir(c.Config().Dir, nodes[0].Name)
		if _, err := os.Stat(store); err != nil {
			t.Fatalf("store before wipe: %v", err)
		}
		if err := c.Wipe(ctx, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(store); !os.IsNotExist(err) {
			t.Fatalf("store after wipe: %v", err)
		}
		publish(t, js, int(total), int(total)+30)
		total += 30
		if err := c.Start(ctx, 0); err != nil {
			t.Fatal(err)
		}
		track(0)
		for _, n := range nodes {
			eventually(t, 30*time.Second, n.Name+" caught up", func() error { return wantOn(n, "T", total) })
		}
		eventually(t, 20*time.Second, "every replica current", func() error {
			info, err := js.Stream(ctx, "T")
			if err != nil {
				return err
			}
			ci := info.CachedInfo().Cluster
			if ci == nil || ci.Leader == "" || len(ci.Replicas) != 2 {
				return fmt.Errorf("cluster info %+v", ci)
			}
			for _, r := range ci.Replicas {
				if !r.Current || r.Offline || r.Lag != 0 {
					return fmt.Errorf("replica %+v", *r)
				}
			}
			return nil
		})
		if err := cluster.WaitReady(ctx, c, 20*time.Second); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		for _, cp := range []cluster.Capability{cluster.CapPartition, cluster.CapLatency, cluster.CapLoss, cluster.CapMemoryLimit} {
			if err := c.Supports(cp); !errors.Is(err, cluster.ErrUnsupported) {
				t.Errorf("Supports(%s) = %v", cp, err)
			}
		}
		if err := c.Partition(ctx, [][]int{{0}, {1, 2}}); !errors.Is(err, cluster.ErrUnsupported) || err.Error() != c.Supports(cluster.CapPartition).Error() {
			t.Errorf("Partition = %v", err)
		}
		if err := c.Heal(ctx); !errors.Is(err, cluster.ErrUnsupported) {
			t.Errorf("Heal = %v", err)
		}
		if err := c.SetMemoryLimit(ctx, 0, 256<<20); !errors.Is(err, cluster.ErrUnsupported) {
			t.Errorf("SetMemoryLimit = %v", err)
		}
		// Nothing was cut: every node still routes to every other.
		if err := cluster.WaitReady(ctx, c, 5*time.Second); err != nil {
			t.Error(err)
		}
	})
}

func TestIntegrationAutoRestart(t *testing.T) {
	c, track := startCluster(t, cluster.Config{Nodes: 1, AutoRestart: true})
	ctx := context.Background()
	old := c.PID(0)
	// A crash: the process dies without the runtime asking.
	if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "auto-restart", func() error {
		st, _ := c.State(ctx, 0)
		if !st.Running || st.Restarts != 1 || c.PID(0) == old {
			return fmt.Errorf("%+v pid %d", st, c.PID(0))
		}
		return nil
	})
	track(0)
	if !gone(old) {
		t.Errorf("crashed pid %d not reaped", old)
	}
	eventually(t, 10*time.Second, "restarted node up", func() error { return cluster.Healthy(ctx, c.Nodes()[0]) })
	// A kill the runtime was asked for is not restarted.
	if err := c.Kill(ctx, 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if st, _ := c.State(ctx, 0); st.Running || st.Restarts != 1 {
		t.Fatalf("after an asked-for Kill: %+v", st)
	}
	// Stop of a paused node: SIGTERM is only handled once continued.
	if err := c.Start(ctx, 0); err != nil {
		t.Fatal(err)
	}
	track(0)
	if err := c.Pause(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.State(ctx, 0); st.Running || st.Paused || st.ExitCode != 0 || st.Restarts != 1 {
		t.Fatalf("after Stop of a paused node: %+v", st)
	}
	log, _ := os.ReadFile(LogPath(c.Config().Dir, "n1"))
	if !strings.Contains(string(log), "not asked to; restarting") || !strings.Contains(string(log), "auto-restart #1") {
		t.Errorf("log does not tell the restart:\n%s", log)
	}
}

// dead: no such process, or a zombie that whoever inherited it has not
// reaped yet (it runs no more either way).
func dead(pid int) bool { return gone(pid) || procState(pid) == 'Z' }

// The toolkit dying must take its servers with it: a helper process (this
// test binary) starts a node and is SIGKILLed, so no Close ever runs.
func TestIntegrationServersDieWithTheToolkit(t *testing.T) {
	if os.Getenv("JSCHAOS_LOCAL_HELPER") == "1" {
		c, err := New().Start(context.Background(), cluster.Config{Nodes: 1, Dir: os.Getenv("JSCHAOS_LOCAL_DIR")})
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Println("PID", c.(*Cluster).PID(0))
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	needProcesses(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestIntegrationServersDieWithTheToolkit$")
	cmd.Env = append(os.Environ(), "JSCHAOS_LOCAL_HELPER=1", "JSCHAOS_LOCAL_DIR="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "PID ") {
		cmd.Process.Kill()
		t.Fatalf("helper said %q, %v", line, err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "PID ")))
	if pid == 0 || dead(pid) {
		t.Fatalf("helper's server pid %d is not running", pid)
	}
	cmd.Process.Kill() // SIGKILL: no Close, no deferred cleanup
	cmd.Wait()
	eventually(t, 5*time.Second, "server dies with the toolkit", func() error {
		if !dead(pid) {
			return fmt.Errorf("pid %d still runs", pid)
		}
		return nil
	})
	if !dead(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}
