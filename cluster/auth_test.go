package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A config with a client user, as `chaos cluster up --user` renders it,
// starts a server that refuses clients without it, lets the user in with
// JetStream, and holds no plaintext password; the Dial every node gets
// carries the login.
func TestRenderClientAuth(t *testing.T) {
	cfg := Config{Nodes: 1, ClientUser: "app", ClientPassword: "s3cret-pw"}.WithDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := cfg.Render(ServerConf{Name: "n1", Host: "127.0.0.1", ClientPort: -1, MonitorPort: -1, StoreDir: filepath.Join(dir, "js")})
	if strings.Contains(conf, "s3cret-pw") || !strings.Contains(conf, `CHAOS { jetstream: enabled, users = [ { user: "app", password: "$2a$`) {
		t.Fatalf("rendered config:\n%s", conf)
	}
	path := filepath.Join(dir, "n1.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("the server refuses the config: %v\n%s", err, conf)
	}
	opts.NoLog, opts.NoSigs = true, true
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	defer s.Shutdown()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	if nc, err := nats.Connect(s.ClientURL()); err == nil {
		nc.Close()
		t.Fatal("a client without credentials got in")
	}
	d := cfg.ClientDial()
	if d.String() != "user app" {
		t.Errorf("Dial describes itself as %q", d)
	}
	nc, err := nats.Connect(s.ClientURL(), Node{Dial: d}.ClientOption())
	if err != nil {
		t.Fatalf("the client user: %v", err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := js.AccountInfo(ctx); err != nil {
		t.Errorf("JetStream for the client user: %v", err)
	}
	if (Config{}).ClientDial() != nil {
		t.Error("a cluster without a client user gives its clients a login")
	}
}
