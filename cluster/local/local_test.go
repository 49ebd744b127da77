package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

func TestPickNodePorts(t *testing.T) {
	nps, err := pickNodePorts(3)
	if err != nil || len(nps) != 3 || nps[2].Cluster == 0 {
		t.Fatalf("pickNodePorts(3) = %v, %v", nps, err)
	}
	seen := map[int]bool{}
	for _, np := range nps {
		for _, p := range []int{np.Client, np.Monitor, np.Cluster} {
			if seen[p] {
				t.Fatalf("port %d picked twice in %v", p, nps)
			}
			seen[p] = true
		}
	}
}

func TestPaths(t *testing.T) {
	if got := ConfigPath("/r", "n2"); got != "/r/config/n2.conf" {
		t.Error(got)
	}
	if got := LogPath("/r", "n2"); got != "/r/logs/n2.log" {
		t.Error(got)
	}
	if got := StoreDir("/r", "n2"); got != "/r/data/n2" {
		t.Error(got)
	}
}

func TestParseStatm(t *testing.T) {
	got, err := parseStatm("310000 2500 900 1000 0 20000 0\n")
	if err != nil || got != 2500*pageSize {
		t.Fatalf("parseStatm = %d, %v", got, err)
	}
	if _, err := parseStatm("7"); err == nil {
		t.Fatal("want an error for a short statm")
	}
	self, err := residentBytes(os.Getpid())
	if err != nil || self < 1<<20 {
		t.Fatalf("residentBytes(self) = %d, %v", self, err)
	}
}

func TestSupports(t *testing.T) {
	rt := New()
	if rt.Name() != "local" {
		t.Fatal(rt.Name())
	}
	for _, c := range []cluster.Capability{cluster.CapKill, cluster.CapStop, cluster.CapPause, cluster.CapWipe, cluster.CapStoreFiles, cluster.CapRename} {
		if err := rt.Supports(c); err != nil {
			t.Errorf("Supports(%s) = %v", c, err)
		}
	}
	for _, c := range []cluster.Capability{cluster.CapPartition, cluster.CapLatency, cluster.CapLoss, cluster.CapBandwidth, cluster.CapMemoryLimit, "teleport"} {
		err := rt.Supports(c)
		if !errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), string(c)) {
			t.Errorf("Supports(%s) = %v, want an ErrUnsupported naming it", c, err)
		}
	}
	for _, c := range []cluster.Capability{cluster.CapPartition, cluster.CapLoss, cluster.CapBandwidth} {
		if err := rt.Supports(c); !strings.Contains(err.Error(), "network namespace") {
			t.Errorf("%s refusal does not say why: %v", c, err)
		}
	}
}

func TestStartRefusesMemoryLimit(t *testing.T) {
	rt := &Runtime{Binary: "/nonexistent/nats-server"} // refused before any process
	_, err := rt.Start(context.Background(), cluster.Config{Dir: t.TempDir(), MemoryLimit: 256 << 20})
	if !errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), "GOMEMLIMIT") {
		t.Fatalf("Start with a memory limit = %v, want an ErrUnsupported refusal", err)
	}
}

// A "server" that fails at once: Start must give up without waiting for
// its timeout, leave nothing running and quote the node's log.
func TestStartFailureQuotesLogAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake-nats-server")
	script := "#!/bin/sh\necho \"fake server: cannot start with $*\" >&2\nexit 3\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	rt := &Runtime{Binary: bin}
	_, err := rt.Start(context.Background(), cluster.Config{Dir: dir, Nodes: 2})
	if err == nil {
		t.Fatal("Start with a failing binary succeeded")
	}
	for _, want := range []string{"exited (exit 3)", "fake server: cannot start with -c " + filepath.Join(dir, "config"), "last lines of " + filepath.Join(dir, "logs")} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	for _, name := range []string{"n1", "n2"} {
		conf, err := os.ReadFile(ConfigPath(dir, name))
		if err != nil || !strings.Contains(string(conf), "127.0.0.1:") || !strings.Contains(string(conf), StoreDir(dir, name)) {
			t.Errorf("config of %s: %v\n%s", name, err, conf)
		}
	}
}

// A port another program took between picking and binding: Start picks
// again, at most three times, then reports it.
func TestStartRepicksTakenPorts(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake-nats-server")
	script := "#!/bin/sh\necho 'Error listening on port: 127.0.0.1:1, \"listen tcp: bind: address already in use\"' >&2\nexit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := (&Runtime{Binary: bin}).Start(context.Background(), cluster.Config{Dir: dir, Nodes: 1})
	if !errors.Is(err, errPortTaken) {
		t.Fatalf("Start = %v, want errPortTaken", err)
	}
	log, _ := os.ReadFile(LogPath(dir, "n1"))
	if n := strings.Count(string(log), ": n1: start: running "); n != 3 {
		t.Errorf("%d attempts, want 3:\n%s", n, log)
	}
}
