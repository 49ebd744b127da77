package catchup

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/client/clienttest"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Every connection catchup opens (the setup's, the admin's, each
// publisher's) carries the cluster's credentials and catchup's reconnect
// buffer: on a cluster that demands credentials each one works with the
// nodes' Dial and is refused without it.
func TestConnectionsCarryTheDial(t *testing.T) {
	login, bare := clienttest.Server(t, 3)
	ctx := context.Background()
	cellOn := func(nodes []cluster.Node) *cell {
		return &cell{c: clienttest.Cluster{N: nodes}, opts: Defaults, t0: time.Now(), target: 0}
	}

	r := cellOn(login)
	// One server has no peers for R3: refused, once it connected.
	if err := r.createStream(ctx); err == nil || !strings.HasPrefix(err.Error(), "create stream ") {
		t.Errorf("setup with the Dial: %v, want the R3 stream refused (it connected)", err)
	}
	if err := r.connect(); err != nil {
		t.Fatalf("admin and publishers with the Dial: %v", err)
	}
	defer r.closeClients()
	conns := []*nats.Conn{r.admin}
	for _, p := range r.fleet.pubs {
		conns = append(conns, p.nc)
	}
	if len(conns) != 1+Defaults.Publishers {
		t.Fatalf("%d connections, want the admin's and %d publishers'", len(conns), Defaults.Publishers)
	}
	for _, nc := range conns {
		if nc.Opts.User != clienttest.User || nc.Opts.ReconnectBufSize != 32<<20 {
			t.Errorf("%s: user %q, reconnect buffer %d; want %q, %d", nc.Opts.Name, nc.Opts.User, nc.Opts.ReconnectBufSize, clienttest.User, 32<<20)
		}
	}

	r = cellOn(bare)
	if err := r.createStream(ctx); !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("setup without the Dial: %v, want an authorization violation", err)
	}
	if err := r.connect(); !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("admin without the Dial: %v, want an authorization violation", err)
	}
	r.closeClients()
}
