package docker

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// sweepText removes a dead owner's copies and keeps a live one's.
func TestSweepTextRemovesOnlyDeadOwners(t *testing.T) {
	probe, err := pinText(os.Args[0], "probe-"+randomHex(3))
	if err != nil {
		t.Skipf("no tmpfs here: %v", err) // pinText's refusal is the runtime's fallback
	}
	unpinText(probe)
	alive := ownerOf(os.Getppid())
	dead := fmt.Sprintf("%s/%d/%s", hostname(), 1<<30, "1")
	for _, tc := range []struct {
		owner string
		kept  bool
	}{{alive, true}, {dead, false}} {
		dir := filepath.Join(textRoot, url.PathEscape(tc.owner), "c1")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(filepath.Dir(dir)) })
	}
	n := 0
	if err := sweepText(&n); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		owner string
		kept  bool
	}{{alive, true}, {dead, false}} {
		_, err := os.Stat(filepath.Join(textRoot, url.PathEscape(tc.owner)))
		if kept := err == nil; kept != tc.kept {
			t.Errorf("owner %s: kept %v, want %v (%v)", tc.owner, kept, tc.kept, err)
		}
	}
	if n < 1 {
		t.Errorf("sweepText counted %d removals, want at least the dead owner's", n)
	}
}

// The nodes run the server from the cluster's tmpfs copy, which Close
// removes.
func TestIntegrationNodesRunTheServerFromTmpfs(t *testing.T) {
	t.Parallel()
	needDocker(t)
	probe, err := pinText(os.Args[0], "probe-"+randomHex(3))
	if err != nil {
		t.Skipf("no tmpfs here: %v", err)
	}
	unpinText(probe)
	c := startCluster(t, cluster.Config{RunID: "text"})
	dc := c.(*dockerCluster)
	if dc.text == "" {
		t.Fatal("the host has a tmpfs, but the cluster runs the image's copy of the server")
	}
	for i, n := range dc.nodes {
		dc.rememberPid(context.Background(), n)
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", n.pid))
		if err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
		if exe != textMount+"/nats-server" {
			t.Errorf("node %d runs %s, want %s/nats-server", i, exe, textMount)
		}
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dc.text); !os.IsNotExist(err) {
		t.Errorf("after Close, %s: %v, want it gone", dc.text, err)
	}
}
