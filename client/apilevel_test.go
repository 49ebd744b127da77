package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/client/clienttest"
)

// A server at or above the level passes; one below is refused in one line
// naming the feature, the release and both levels.
func TestRequireAPILevel(t *testing.T) {
	nodes, _ := clienttest.Server(t, 1)
	nc, err := client.Connect(nodes, client.Order(0, 1), "t")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	if err := client.RequireAPILevel(ctx, js, 2, "atomic batch publish (ADR-50)", "v2.12.0"); err != nil {
		t.Errorf("go.mod's server refused for level 2: %v", err)
	}
	err = client.RequireAPILevel(ctx, js, 99, "a future feature", "v9.0.0")
	if err == nil || strings.Contains(err.Error(), "\n") ||
		!strings.HasPrefix(err.Error(), "a future feature needs nats-server v9.0.0 or later (JetStream API level 99); this server reports level ") {
		t.Errorf("level 99: %v", err)
	}
}
