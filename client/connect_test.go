package client

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/client/clienttest"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// serve starts an in-process server named name.
func serve(t *testing.T, name string) *server.Server {
	t.Helper()
	s, err := server.NewServer(&server.Options{ServerName: name, Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(5 * time.Second) {
		t.Fatalf("server %s not ready", name)
	}
	t.Cleanup(s.Shutdown)
	return s
}

// Every connection carries the nodes' Dial, even against options that say
// otherwise, and a cluster that needs credentials refuses one without.
func TestConnectAppliesDial(t *testing.T) {
	login, bare := clienttest.Server(t, 1)
	cases := []struct {
		name  string
		nodes []cluster.Node
		opts  []nats.Option
		wrong bool // refused for its credentials
	}{
		{"the Dial's user", login, nil, false},
		{"the Dial's user over a workload's option", login, []nats.Option{nats.UserInfo(clienttest.User, "wrong")}, false},
		{"no Dial", bare, nil, true},
		{"a workload's user alone is not the cluster's", bare, []nats.Option{nats.UserInfo(clienttest.User, "wrong")}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nc, err := Connect(c.nodes, []int{0}, "test", append(c.opts, nats.MaxReconnects(0))...)
			if c.wrong {
				if !errors.Is(err, nats.ErrAuthorization) {
					t.Fatalf("connected without the cluster's credentials: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			nc.Close()
		})
	}
}

// A Dial's option runs on every connection, whichever node is preferred
// (queue's clients prefer node i, catchup's the nodes other than its
// target), and its error is Connect's.
func TestConnectRunsDialOptions(t *testing.T) {
	s := serve(t, "plain")
	ran := 0
	record := cluster.NewDial("recorder", func(*nats.Options) error { ran++; return nil })
	nodes := []cluster.Node{{Name: "n1", ClientURL: s.ClientURL(), Dial: record},
		{Name: "n2", ClientURL: s.ClientURL(), Dial: record}, {Name: "n3", ClientURL: s.ClientURL(), Dial: record}}
	for _, order := range [][]int{Order(0, 3), Order(2, 3), {1, 2, 0}, {2}} {
		before := ran
		nc, err := Connect(nodes, order, "test")
		if err != nil {
			t.Fatal(err)
		}
		nc.Close()
		if ran != before+1 {
			t.Errorf("order %v: the Dial's option ran %d times, want once", order, ran-before)
		}
	}
	broken := errors.New("no such creds file")
	bad := []cluster.Node{{Name: "n1", ClientURL: s.ClientURL(), Dial: cluster.NewDial("creds", func(*nats.Options) error { return broken })}}
	if _, err := Connect(bad, []int{0}, "test"); !errors.Is(err, broken) {
		t.Errorf("a Dial option's error lost: %v", err)
	}
}

// The first node of order is the one dialled, the others are fallbacks in
// order; the defaults reconnect forever and ignore advertised servers, and
// a workload's option changes a default.
func TestConnectOrderAndOptions(t *testing.T) {
	a, b := serve(t, "a"), serve(t, "b")
	nodes := []cluster.Node{{Name: "a", ClientURL: a.ClientURL()}, {Name: "b", ClientURL: b.ClientURL()}}
	nc, err := Connect(nodes, []int{1, 0}, "ordered", nats.ReconnectBufSize(32<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if got := nc.ConnectedServerName(); got != "b" {
		t.Errorf("connected to %s, want b (first in order)", got)
	}
	o := nc.Opts
	if got := strings.Join(o.Servers, ","); got != b.ClientURL()+","+a.ClientURL() {
		t.Errorf("servers %s, want b then a", got)
	}
	if o.Name != "ordered" || o.MaxReconnect != -1 || !o.NoRandomize || !o.IgnoreDiscoveredServers ||
		o.ReconnectWait != 250*time.Millisecond || o.Timeout != 2*time.Second {
		t.Errorf("defaults not applied: name %q, max reconnects %d, no randomize %v, ignore discovered %v, wait %s, timeout %s",
			o.Name, o.MaxReconnect, o.NoRandomize, o.IgnoreDiscoveredServers, o.ReconnectWait, o.Timeout)
	}
	if o.ReconnectBufSize != 32<<20 {
		t.Errorf("reconnect buffer %d, want the option's %d", o.ReconnectBufSize, 32<<20)
	}
}

// Bad input is a clear error, never a connection somewhere else.
func TestConnectRefusesBadInput(t *testing.T) {
	one := cluster.NewDial("one")
	other := cluster.NewDial("other")
	nodes := []cluster.Node{{Name: "n1", ClientURL: "nats://127.0.0.1:1", Dial: one},
		{Name: "n2", ClientURL: "nats://127.0.0.1:2", Dial: one}, {Name: "n3", ClientURL: "nats://127.0.0.1:3", Dial: other}}
	cases := []struct {
		order []int
		want  string
	}{
		{nil, "connect test: no node to connect to"},
		{[]int{0, 3}, "connect test: no node 3 among 3"},
		{[]int{-1}, "connect test: no node -1 among 3"},
		{[]int{0, 2}, "connect test: nodes n1 and n3 carry different credentials (one, other)"},
	}
	for _, c := range cases {
		if _, err := Connect(nodes, c.order, "test"); err == nil || err.Error() != c.want {
			t.Errorf("order %v: %v, want %q", c.order, err, c.want)
		}
	}
}

func TestOrder(t *testing.T) {
	cases := []struct {
		first, n int
		want     []int
	}{
		{0, 3, []int{0, 1, 2}},
		{2, 3, []int{2, 0, 1}},
		{4, 3, []int{1, 2, 0}}, // client 4 of 3 nodes prefers node 1
		{0, 1, []int{0}},
		{5, 0, []int{}},
	}
	for _, c := range cases {
		if got := Order(c.first, c.n); !slices.Equal(got, c.want) {
			t.Errorf("Order(%d, %d) = %v, want %v", c.first, c.n, got, c.want)
		}
	}
}
