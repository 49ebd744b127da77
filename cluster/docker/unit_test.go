package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Tests here need no Docker daemon.

func TestBuildContext(t *testing.T) {
	files := map[string][]byte{"netfault": []byte("nf"), "Dockerfile": []byte(dockerfile), "nats-server": []byte("ns")}
	b, err := buildContext(files)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(bytes.NewReader(b))
	var got []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		if !bytes.Equal(body, files[h.Name]) {
			t.Errorf("%s: body %q", h.Name, body)
		}
		got = append(got, fmt.Sprintf("%s %o", h.Name, h.Mode))
	}
	want := []string{"Dockerfile 644", "nats-server 755", "netfault 755"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("context = %v, want %v", got, want)
	}
	if strings.Contains(dockerfile, "syntax=") {
		t.Error("the Dockerfile must not have a syntax line: it makes the builder pull")
	}
}

func TestImageTag(t *testing.T) {
	base := imageTag("v2.15.3", []byte("server"), []byte("netfault"))
	if !strings.HasPrefix(base, ImageRepo+":v2.15.3-") || len(base) != len(ImageRepo+":v2.15.3-")+12 {
		t.Fatalf("tag %q", base)
	}
	cases := []struct {
		name    string
		tag     string
		samePtr bool
	}{
		{"same inputs", imageTag("v2.15.3", []byte("server"), []byte("netfault")), true},
		{"other server", imageTag("v2.15.3", []byte("server2"), []byte("netfault")), false},
		{"other netfault", imageTag("v2.15.3", []byte("server"), []byte("netfault2")), false},
		{"bytes moved across the boundary", imageTag("v2.15.3", []byte("servern"), []byte("etfault")), false},
	}
	for _, c := range cases {
		if (c.tag == base) != c.samePtr {
			t.Errorf("%s: %q vs %q", c.name, c.tag, base)
		}
	}
	// A local build's name holds a "+", which no tag may.
	if tag := imageTag("1787eee03f+dirty.3f2a9c1d", nil, nil); !regexp.MustCompile(`^[a-z0-9./-]+:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`).MatchString(tag) {
		t.Errorf("local build's tag %q is no valid Docker tag", tag)
	}
}

func TestBuildOutcome(t *testing.T) {
	cases := []struct {
		stream, wantErr string
	}{
		{`{"stream":"Step 1/5 : FROM scratch\n"}{"stream":"Successfully built abc\n"}`, ""},
		{`{"stream":"Step 2/5 : COPY x /x\n"}{"errorDetail":{"message":"COPY failed: no x"},"error":"COPY failed: no x"}`, "Step 2/5 : COPY x /x: COPY failed: no x"},
		{`{"stream":"ok"}{bad`, "reading build output"},
	}
	for _, c := range cases {
		err := buildOutcome(strings.NewReader(c.stream))
		if (c.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("buildOutcome(%q) = %v, want %q", c.stream, err, c.wantErr)
		}
	}
}

func TestFindModule(t *testing.T) {
	cases := []struct {
		out, dir string
		ok       bool
	}{
		{modulePath + "\t/src/jc\n", "/src/jc", true},
		{"example.com/other\t/x\n" + modulePath + "\t/src/jc\n", "/src/jc", true},
		{"command-line-arguments\t\n", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		if dir, ok := findModule(c.out); dir != c.dir || ok != c.ok {
			t.Errorf("findModule(%q) = %q, %v", c.out, dir, ok)
		}
	}
}

func TestOwners(t *testing.T) {
	if got := statStart("123 (we ird) cmd) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 4242 rest"); got != "4242" {
		t.Errorf("statStart = %q, want 4242", got)
	}
	parent := ownerOf(os.Getppid())
	cases := []struct {
		owner string
		alive bool
	}{
		{selfOwner, false},                   // our own leftovers are swept
		{parent, true},                       // a live process's are kept
		{hostname() + "/999999999/1", false}, // dead pid
		{strings.TrimSuffix(parent, "/"+procStart(os.Getppid())) + "/1", false}, // pid reused by another process
		{"elsewhere/1/1", true}, // cannot check another host
		{"", false},             // unlabelled: not protected
	}
	for _, c := range cases {
		if got := ownerAlive(c.owner); got != c.alive {
			t.Errorf("ownerAlive(%q) = %v, want %v", c.owner, got, c.alive)
		}
	}
}

func TestClusterID(t *testing.T) {
	cases := []struct{ run, want string }{
		{"", "abc"},
		{"2026-11-30T04:20 kv/update", "2026-11-30T04-20-kv-upda-abc"},
		{"..run..", "run-abc"},
	}
	for _, c := range cases {
		if got := clusterID(c.run, "abc"); got != c.want {
			t.Errorf("clusterID(%q) = %q, want %q", c.run, got, c.want)
		}
	}
}

func TestBlockedFor(t *testing.T) {
	cases := []struct {
		name   string
		groups [][]int
		want   [][]int
	}{
		{"healed", nil, [][]int{nil, nil, nil}},
		{"one cut off", [][]int{{0, 1}, {2}}, [][]int{{2}, {2}, {0, 1}}},
		{"node in no group", [][]int{{0, 1}}, [][]int{{2}, {2}, {0, 1}}},
		{"everyone alone", [][]int{}, [][]int{{1, 2}, {0, 2}, {0, 1}}},
	}
	for _, c := range cases {
		if got := blockedFor(c.groups, 3); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: blockedFor = %v, want %v", c.name, got, c.want)
		}
	}
	for _, g := range [][][]int{{{0}, {0}}, {{3}}, {{-1}}} {
		if validGroups(g, 3) == nil {
			t.Errorf("validGroups(%v) accepted", g)
		}
	}
}

func TestCgroupMemFile(t *testing.T) {
	const id = "04923f5be3cd"
	cases := []struct{ name, in, want string }{
		{"v1 cgroupfs", "5:devices:/docker/" + id + "\n4:memory:/docker/" + id + "\n0::/\n", "/sys/fs/cgroup/memory/docker/" + id + "/memory.usage_in_bytes"},
		{"v2 systemd", "0::/system.slice/docker-" + id + ".scope\n", "/sys/fs/cgroup/system.slice/docker-" + id + ".scope/memory.current"},
		{"cgroup namespace", "0::/\n", ""},
		{"another process", "4:memory:/user.slice\n", ""},
	}
	for _, c := range cases {
		if got := cgroupMemFile(c.in, id); got != c.want {
			t.Errorf("%s: cgroupMemFile = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestSupports(t *testing.T) {
	r := New()
	for _, c := range []cluster.Capability{cluster.CapKill, cluster.CapStop, cluster.CapPause, cluster.CapWipe, cluster.CapMemoryLimit, cluster.CapPartition,
		cluster.CapLoss, cluster.CapBandwidth, cluster.CapStoreFiles, cluster.CapRename} {
		if err := r.Supports(c); err != nil {
			t.Errorf("Supports(%s) = %v", c, err)
		}
	}
	if haveNetem() {
		t.Skip("this kernel has sch_netem: latency's refusal is another one")
	}
	if err := r.Supports(cluster.CapLatency); !errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), "no sch_netem") {
		t.Errorf("Supports(latency) = %v, want a refusal saying the kernel has no sch_netem", err)
	}
	tmpfs := &dockerCluster{cfg: cluster.Config{StoreOnTmpfs: true}}
	if err := tmpfs.Supports(cluster.CapStoreFiles); !errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), "tmpfs") {
		t.Errorf("Supports(store-files) on tmpfs = %v, want a refusal naming tmpfs", err)
	}
}

func TestTCRuntimePinsLocalSockets(t *testing.T) {
	cases := []struct{ dockerHost, want string }{
		{"unix:///run/other.sock", "unix:///run/other.sock"},
		{"tcp://127.0.0.1:2376", ""}, // testcontainers' discovery, with its TLS settings
	}
	for _, c := range cases {
		t.Setenv("DOCKER_HOST", c.dockerHost)
		rc, err := tcRuntime{}.Initialize(context.Background())
		if err != nil || rc.DockerHost != c.want || (c.want != "" && rc.DockerSocketPath != strings.TrimPrefix(c.want, "unix://")) {
			t.Errorf("DOCKER_HOST=%s: %+v, %v; want %q", c.dockerHost, rc, err, c.want)
		}
	}
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") != "true" || os.Getenv("TESTCONTAINERS_PROVIDER") != tcProvider {
		t.Error("init did not configure testcontainers")
	}
}

func TestAvailableSaysWhatToTry(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	err := Available(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no Docker daemon answers at unix:///nonexistent/docker.sock") ||
		!strings.Contains(err.Error(), "--runtime local") || strings.Contains(err.Error(), "\n") {
		t.Errorf("Available = %v", err)
	}
}
