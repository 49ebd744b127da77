package docker

import (
	"context"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/moby/moby/client"
)

// Run with -bench . -benchtime 1x: each op starts a real 3-node cluster.
// Start includes waiting until it is ready (meta leader, all routes).

// BenchmarkStartWarm starts with the node image already built.
func BenchmarkStartWarm(b *testing.B) {
	needDocker(b)
	ctx := context.Background()
	if _, err := Image(ctx, ""); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c := benchCluster(b)
		b.StopTimer()
		closeCluster(b, c)
		b.StartTimer()
	}
}

// BenchmarkStartCold rebuilds netfault and the image, without the layer
// cache, on every start. It builds under fresh tags so the shared image,
// which other runs may be using, is never removed; the nats-server binary
// stays cached on disk (building it is a one-off of about a minute).
func BenchmarkStartCold(b *testing.B) {
	needDocker(b)
	ctx := context.Background()
	var built []string
	b.Cleanup(func() {
		forgetImage("")
		for _, tag := range built {
			removeImage(b, tag)
		}
	})
	for b.Loop() {
		b.StopTimer()
		forgetImage("\n# cold " + randomHex(4))
		b.StartTimer()
		c := benchCluster(b)
		b.StopTimer()
		tag, err := Image(ctx, "") // the salted tag Start just built
		if err != nil {
			b.Fatal(err)
		}
		built = append(built, tag)
		closeCluster(b, c)
		b.StartTimer()
	}
}

// BenchmarkClose measures teardown: saving logs, removing containers and
// the network.
func BenchmarkClose(b *testing.B) {
	needDocker(b)
	for b.Loop() {
		b.StopTimer()
		c := benchCluster(b)
		b.StartTimer()
		closeCluster(b, c)
	}
}

func benchCluster(b *testing.B) cluster.Cluster {
	c, err := New().Start(context.Background(), cluster.Config{Dir: b.TempDir(), RunID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func closeCluster(b *testing.B, c cluster.Cluster) {
	if err := c.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// forgetImage drops what this process knows about the image and the
// netfault build, and sets the salt for the next build.
func forgetImage(salt string) {
	imageMu.Lock()
	defer imageMu.Unlock()
	coldSalt, netfault = salt, nil
	delete(images, serverbin.DefaultVersion())
}

func removeImage(b *testing.B, tag string) {
	cli, err := newClient()
	if err != nil {
		b.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.ImageRemove(context.Background(), tag, client.ImageRemoveOptions{PruneChildren: true}); err != nil && !isNotFound(err) {
		b.Error(err)
	}
}
