package client_test

import (
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/client/clienttest"
)

// Conns opens named connections to the node asked first and closes every
// one it opened; a refused connection is an error naming it.
func TestConnsOpenAndCloseAll(t *testing.T) {
	nodes, _ := clienttest.Server(t, 1)
	c := client.Conns{Nodes: nodes}
	a, err := c.Connect(0, "first")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Connect(0, "second")
	if err != nil {
		t.Fatal(err)
	}
	if a.Opts.Name != "first" || !b.IsConnected() {
		t.Errorf("name %q, connected %v", a.Opts.Name, b.IsConnected())
	}
	c.Close()
	if !a.IsClosed() || !b.IsClosed() {
		t.Errorf("closed %v %v", a.IsClosed(), b.IsClosed())
	}
	bad := client.Conns{Nodes: nodes[:0]}
	if _, err := bad.Connect(0, "nowhere"); err == nil {
		t.Error("a connection with no node to try opened")
	}
}
