package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// TestIntegrationImageRunsExternal is the acceptance of the chaos image:
// the Dockerfile builds here without pulling anything, and the image runs
// `chaos run --runtime external` against a `chaos cluster up --detach`
// cluster from a container on that cluster's network, writing its store
// to a mounted folder. deploy/kubernetes/Dockerfile layers the binary on
// another image the same way (here on the chaos image itself, the one
// local image at hand). Everything it makes carries one label and goes
// at the end: containers, images, the cluster.
func TestIntegrationImageRunsExternal(t *testing.T) {
	t.Parallel()
	testenv.Require(t, testenv.Docker(docker.Available))
	repo, _ := filepath.Abs("../..")
	tag := fmt.Sprintf("jetstream-chaos/chaos:test-%d", os.Getpid())
	label := fmt.Sprintf("io.jetstream-chaos.test=image-%d", os.Getpid())
	t.Cleanup(func() {
		if ids, _ := exec.Command("docker", "ps", "-aq", "--filter", "label="+label).Output(); len(ids) > 0 {
			_ = exec.Command("docker", append([]string{"rm", "-f"}, strings.Fields(string(ids))...)...).Run()
		}
		_ = exec.Command("docker", "rmi", "-f", tag, tag+"-kubectl").Run()
	})

	// The context is what `make image` gives the build: bin/chaos, static,
	// and the repository's .dockerignore.
	ctx := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(ctx, "bin", "chaos"), ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(repo, ".dockerignore")); err != nil || os.WriteFile(filepath.Join(ctx, ".dockerignore"), b, 0o644) != nil {
		t.Fatalf(".dockerignore: %v", err)
	}
	dockerOK(t, "build", "--label", label, "-t", tag, "-f", filepath.Join(repo, "Dockerfile"), ctx)
	dockerOK(t, "build", "--label", label, "-t", tag+"-kubectl", "--build-arg", "CHAOS_IMAGE="+tag, "--build-arg", "KUBECTL_IMAGE="+tag,
		"-f", filepath.Join(repo, "deploy", "kubernetes", "Dockerfile"), filepath.Join(repo, "deploy", "kubernetes"))
	if out := dockerOK(t, "run", "--rm", "--label", label, "--entrypoint", "/usr/local/bin/chaos", tag+"-kubectl", "version"); !strings.Contains(out, "jetstream-chaos") {
		t.Errorf("the layered image's chaos version: %s", out)
	}

	store := t.TempDir()
	if code, stdout, stderr := chaos(t, repo, "cluster", "up", "--detach", "--runtime", "docker", "--store", store); code != 0 {
		t.Fatalf("cluster up --detach: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Cleanup(func() {
		if code, out, errOut := chaos(t, repo, "cluster", "down", "--store", store); code != 0 {
			t.Errorf("cluster down: exit %d %s %s", code, out, errOut)
		}
	})
	var nodes []cluster.Node
	b, err := os.ReadFile(filepath.Join(store, "cluster", "nodes.json"))
	if err != nil || json.Unmarshal(b, &nodes) != nil || len(nodes) != 3 {
		t.Fatalf("nodes.json: %v %s", err, b)
	}
	nw, err := os.ReadFile(filepath.Join(store, "cluster", NetworkFile))
	if err != nil {
		t.Fatal(err)
	}
	// On the cluster's network each node answers to its name (its slot).
	var servers, monitors, names []string
	for _, n := range nodes {
		servers = append(servers, "nats://"+n.Name+":4222")
		monitors = append(monitors, "http://"+n.Name+":8222")
		names = append(names, n.Name)
	}
	runs := filepath.Join(store, "image-runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("docker", "run", "--label", label, "--network", strings.TrimSpace(string(nw)),
		"--user", fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()), "-v", runs+":/store", tag,
		"run", "--runtime", "external", "--workload", "kv-update", "--direct-get", "off", "--time-limit", "5s",
		"--nemesis", "stepdown", "--nemesis-interval", "2s", "--seed", "7",
		"--server", strings.Join(servers, ","), "--monitor", strings.Join(monitors, ","), "--node-names", strings.Join(names, ","), "--yes").CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != record.ExitValid && code != record.ExitInvalid {
		t.Fatalf("the image's run: exit %d, want a verdict (%d or %d)\n%s", code, record.ExitValid, record.ExitInvalid, out)
	}
	t.Logf("the image's run: exit %d", code)
	var res record.Result
	if b, err := os.ReadFile(filepath.Join(runs, "latest", "results.json")); err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("results.json in the mounted store: %v\n%s", err, out)
	}
	if res.Runtime != "external" || len(res.Cells) != 1 || res.Cells[0].Error != "" || len(res.Cells[0].Checks) == 0 {
		t.Fatalf("the image's run: runtime %q, cells %+v", res.Runtime, res.Cells)
	}
}

// dockerOK runs docker with args and returns its output, failing the test
// if it fails.
func dockerOK(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
