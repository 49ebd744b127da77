package external

import (
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// testCluster is n in-process JetStream servers routed together on
// 127.0.0.1: a real cluster the runtime did not start, without Docker.
type testCluster struct {
	t       *testing.T
	opts    []*server.Options
	servers []*server.Server
	ports   []int
}

func startCluster(t *testing.T, n int, mod func(i int, o *server.Options)) *testCluster {
	t.Helper()
	ports, err := cluster.FreePorts(3 * n)
	if err != nil {
		t.Fatal(err)
	}
	tc := &testCluster{t: t, ports: ports}
	t.Cleanup(func() { cluster.ReleasePorts(ports) })
	for i := range n {
		o := &server.Options{
			ServerName: fmt.Sprintf("s%d", i+1), Host: "127.0.0.1", Port: ports[3*i],
			HTTPHost: "127.0.0.1", HTTPPort: ports[3*i+1], JetStream: true, StoreDir: t.TempDir(),
			NoLog: true, NoSigs: true,
		}
		if n > 1 {
			o.Cluster = server.ClusterOpts{Name: "test", Host: "127.0.0.1", Port: ports[3*i+2]}
			for j := range n {
				o.Routes = append(o.Routes, server.RoutesFromStr(fmt.Sprintf("nats://127.0.0.1:%d", ports[3*j+2]))...)
			}
		}
		if mod != nil {
			mod(i, o)
		}
		tc.opts = append(tc.opts, o)
		tc.servers = append(tc.servers, nil)
		tc.start(i)
	}
	t.Cleanup(func() {
		for _, s := range tc.servers {
			if s != nil {
				s.Shutdown()
			}
		}
	})
	return tc
}

// start (re)starts server i with its options.
func (tc *testCluster) start(i int) {
	tc.t.Helper()
	s, err := server.NewServer(tc.opts[i].Clone())
	if err != nil {
		tc.t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		tc.t.Fatalf("server %d not ready", i)
	}
	tc.servers[i] = s
}

func (tc *testCluster) stop(i int) {
	tc.servers[i].Shutdown()
	tc.servers[i].WaitForShutdown()
	tc.servers[i] = nil
}

// options are what a user would pass for this cluster.
func (tc *testCluster) options() Options {
	var o Options
	for i := range tc.opts {
		o.Servers = append(o.Servers, fmt.Sprintf("nats://127.0.0.1:%d", tc.ports[3*i]))
		o.Monitors = append(o.Monitors, fmt.Sprintf("http://127.0.0.1:%d", tc.ports[3*i+1]))
	}
	o.ConnectTimeout, o.ProbeTimeout, o.HookTimeout = 20*time.Second, time.Second, 10*time.Second
	return o
}
