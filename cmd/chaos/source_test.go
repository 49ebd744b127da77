package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// A server developer's branch runs as a cell: a nats-server checkout with
// one log line added builds, runs a kv-update cell on the local runtime
// named by its commit and "+dirty", and its nodes log the line.
func TestIntegrationServerSourceRunsABranch(t *testing.T) {
	t.Parallel()
	testenv.Require(t, testenv.ModuleProxy("github.com/nats-io/nats-server/v2"))
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	src := serverCheckout(t)
	const line = "jetstream-chaos: a line added on this branch"
	addLogLine(t, src, line)
	commit := strings.TrimSpace(sh(t, src, "git", "rev-parse", "HEAD"))[:10]

	dir := t.TempDir()
	code, stdout, stderr := chaosEnv(t, dir, []string{"JSCHAOS_CACHE=" + filepath.Join(dir, "cache")}, "run", "--runtime", "local", "--server-source", src, "--workload", "kv-update",
		"--time-limit", "3s", "--direct-get", "off", "--store", "store")
	if code != record.ExitValid {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "store", "*Z-s*", "results.json"))
	if len(runs) != 1 {
		t.Fatalf("runs %v", runs)
	}
	var res record.Result
	b, _ := os.ReadFile(runs[0])
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 1 || !strings.HasPrefix(res.Cells[0].ServerVersion, commit+"+dirty.") {
		t.Fatalf("cells %+v, want one named %s+dirty.*", res.Cells, commit)
	}
	if !strings.Contains(res.Command, "--server-source="+src) {
		t.Errorf("the rerun command %q does not build the checkout again", res.Command)
	}
	logs, _ := filepath.Glob(filepath.Join(filepath.Dir(runs[0]), res.Cells[0].Name, "logs", "*.log"))
	for _, l := range logs {
		if b, _ := os.ReadFile(l); !strings.Contains(string(b), line) {
			t.Errorf("%s lacks the added line", l)
		}
	}
	if len(logs) != 3 {
		t.Errorf("node logs %v", logs)
	}
}

// serverCheckout is the pinned release's source from the module cache,
// made a git checkout of one commit.
func serverCheckout(t *testing.T) string {
	t.Helper()
	out := sh(t, t.TempDir(), "go", "mod", "download", "-json", "github.com/nats-io/nats-server/v2@"+serverbin.DefaultVersion())
	var m struct{ Dir string }
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.Dir == "" {
		t.Fatalf("go mod download: %v %q", err, out)
	}
	src := filepath.Join(t.TempDir(), "nats-server")
	sh(t, "", "cp", "-r", m.Dir, src)
	sh(t, "", "chmod", "-R", "u+w", src)
	sh(t, src, "git", "init", "-q")
	sh(t, src, "git", "add", "-A")
	sh(t, src, "git", "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "the release")
	return src
}

// addLogLine makes the server log line when it starts, after its own
// "Starting nats-server".
func addLogLine(t *testing.T, src, line string) {
	t.Helper()
	p := filepath.Join(src, "server", "server.go")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const anchor = "s.Noticef(\"Starting nats-server\")\n"
	if !strings.Contains(string(b), anchor) {
		t.Fatalf("%s has no %q", p, anchor)
	}
	edited := strings.Replace(string(b), anchor, anchor+"\ts.Noticef(\""+line+"\")\n", 1)
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sh(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}
