package queue

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/client/clienttest"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Every connection queue opens (the admin's, a producer's, a pull
// worker's, an ordered subscription's) carries the cluster's credentials:
// on a cluster that demands them each one works with the nodes' Dial and
// is refused without it.
func TestConnectionsCarryTheDial(t *testing.T) {
	login, bare := clienttest.Server(t, 3)
	ctx := context.Background()
	o := Defaults
	o.Replicas = 1
	env := func(nodes []cluster.Node) *workloads.Env {
		return &workloads.Env{Cluster: clienttest.Cluster{N: nodes}, Dir: t.TempDir()}
	}
	if _, err := setup(ctx, o, env(bare)); !errors.Is(err, nats.ErrAuthorization) {
		t.Fatalf("setup without the Dial: %v, want an authorization violation", err)
	}
	i, err := setup(ctx, o, env(login))
	if err != nil {
		t.Fatalf("setup with the Dial: %v", err)
	}
	defer i.Close()
	done, cancel := context.WithCancel(ctx)
	cancel() // the producer returns right after it connects
	if err := i.produce(done, 2, nil); err != nil {
		t.Errorf("producer with the Dial: %v", err)
	}
	p, err := i.newPuller(ctx, workerClient, 1, o.ConsumerNames()[0])
	if err != nil {
		t.Fatalf("pull worker with the Dial: %v", err)
	}
	p.nc.Close()
	s, err := i.subscribeOrdered(ctx, 0, "ordered")
	if err != nil {
		t.Fatalf("ordered subscription with the Dial: %v", err)
	}
	s.stop()

	i.nodes = bare
	if err := i.produce(done, 2, nil); !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("producer without the Dial: %v, want an authorization violation", err)
	}
	if _, err := i.newPuller(ctx, workerClient, 1, o.ConsumerNames()[0]); !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("pull worker without the Dial: %v, want an authorization violation", err)
	}
	sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
	defer scancel()
	if _, err := i.subscribeOrdered(sctx, 0, "ordered"); !errors.Is(err, nats.ErrAuthorization) {
		t.Errorf("ordered subscription without the Dial: %v, want an authorization violation", err)
	}
}
