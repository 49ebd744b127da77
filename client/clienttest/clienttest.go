// Package clienttest starts an in-process JetStream server that demands a
// user and password, for tests that what a package opens through
// client.Connect carries the cluster's credentials (cluster.Node.Dial).
package clienttest

import (
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// The credentials the server demands.
const (
	User     = "chaos"
	Password = "s3cret"
)

// Server starts a JetStream server that demands User and Password, stopped
// when the test ends, and returns n nodes naming it (a workload spreads its
// clients over n nodes) that carry the Dial logging in, and the same nodes
// without it. Its monitoring port (/jsz, /healthz) is each node's
// MonitorURL.
func Server(t testing.TB, n int) (withDial, without []cluster.Node) {
	t.Helper()
	s, err := server.NewServer(&server.Options{ServerName: "auth", Host: "127.0.0.1", Port: -1,
		Username: User, Password: Password, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
		HTTPHost: "127.0.0.1", HTTPPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(5 * time.Second) {
		t.Fatal("the in-process server is not ready")
	}
	t.Cleanup(s.Shutdown)
	login := cluster.NewDial("user "+User, nats.UserInfo(User, Password))
	for i := range n {
		node := cluster.Node{Name: fmt.Sprintf("n%d", i+1), ClientURL: s.ClientURL(), MonitorURL: fmt.Sprintf("http://%s", s.MonitorAddr())}
		without = append(without, node)
		node.Dial = login
		withDial = append(withDial, node)
	}
	return withDial, without
}

// Cluster is a cluster of nodes that answers Nodes and nothing else (any
// other call panics): enough for code that only connects.
type Cluster struct {
	cluster.Cluster
	N []cluster.Node
}

// Nodes are N.
func (c Cluster) Nodes() []cluster.Node { return c.N }
