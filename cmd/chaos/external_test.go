package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/external"
	"github.com/jetstream-chaos/jetstream-chaos/run"
)

// closedPorts are loopback ports nothing listens on: a run that got past
// its refusals would fail to connect, never reach another machine.
func closedPorts(t *testing.T, n int) []int {
	t.Helper()
	ps, err := cluster.FreePorts(n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cluster.ReleasePorts(ps) })
	return ps
}

func urls(host string, ps []int) (servers, monitors string) {
	var s, m []string
	for i := 0; i+1 < len(ps); i += 2 {
		s = append(s, fmt.Sprintf("nats://%s:%d", host, ps[i]))
		m = append(m, fmt.Sprintf("http://%s:%d", host, ps[i+1]))
	}
	return strings.Join(s, ","), strings.Join(m, ",")
}

// TestExternalRefusalsStartNothing: each refusal is one line, exit 3, and
// comes before any connection (the servers here do not exist) and before
// any store is made.
func TestExternalRefusalsStartNothing(t *testing.T) {
	servers, monitors := urls("127.0.0.1", closedPorts(t, 6))
	// 0.0.0.0 is not loopback by name, yet a dial to it stays on this
	// machine: a bug that dialed anyway could not reach the network.
	remote, remoteMon := urls("0.0.0.0", closedPorts(t, 6))
	ext := []string{"run", "--runtime", "external", "--time-limit", "1s"}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no servers", nil, "--runtime external needs --server"},
		{"no monitors", []string{"--server", servers}, "--monitor lists 0 URLs for 3 --server URLs"},
		{"kill without its hook", []string{"--server", servers, "--monitor", monitors, "--nemesis", "kill"},
			"nemesis kill refused: unsupported: the external runtime cannot kill: no --fault-hook kill given"},
		{"kill without start", []string{"--server", servers, "--monitor", monitors, "--nemesis", "kill", "--fault-hook", "kill=docker kill {node}"},
			"no --fault-hook start given (the heal of --fault-hook kill runs it)"},
		{"partition without heal", []string{"--server", servers, "--monitor", monitors, "--nemesis", "partition-one", "--fault-hook", "partition=x {nodes}"},
			"no --fault-hook heal given"},
		{"memory limits", []string{"--server", servers, "--monitor", monitors, "--nemesis", "latency"}, "there is no hook for network shaping"},
		{"restart hook", []string{"--server", servers, "--monitor", monitors, "--fault-hook", "restart=x"}, "the restart fault runs the stop hook, then start"},
		{"a typo in a hook", []string{"--server", servers, "--monitor", monitors, "--fault-hook", "kill=docker kill {nod}"}, "unknown variable {nod}"},
		{"server version", []string{"--server", servers, "--monitor", monitors, "--server-version", "v2.10.7"}, "--server-version does not apply to --runtime external"},
		{"another workload", []string{"--workload", "catchup", "--server", servers, "--monitor", monitors}, "--runtime external runs --workload kv-update only"},
		{"remote without --yes", []string{"--server", remote, "--monitor", remoteMon}, "0.0.0.0 is not on this machine: pass --yes to run against nats://0.0.0.0:"},
		{"route pings", []string{"--server", servers, "--monitor", monitors, "--route-ping-interval", "2s"}, "--route-ping-interval does not apply to --runtime external"},
		{"bad prefix", []string{"--server", servers, "--monitor", monitors, "--name-prefix", "a.b"}, `--name-prefix "a.b"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(append([]string{}, ext...), c.args...)
			if c.name == "another workload" {
				args = append([]string{"run", "--runtime", "external"}, c.args...)
			}
			code, _, stderr := chaos(t, dir, args...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != run.ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and one line containing %q", code, stderr, run.ExitUsage, c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "store")); err == nil {
				t.Errorf("a store was created")
			}
		})
	}
	t.Run("external flags on another runtime", func(t *testing.T) {
		code, _, stderr := chaos(t, t.TempDir(), "run", "--runtime", "local", "--server", servers)
		if code != run.ExitUsage || !strings.Contains(stderr, "--server applies to --runtime external only") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("remote with --yes goes on to connect", func(t *testing.T) {
		code, _, stderr := chaos(t, t.TempDir(), append(ext, "--server", remote, "--monitor", remoteMon, "--yes", "--connect-timeout", "2s")...)
		if code != run.ExitHarness || !strings.Contains(stderr, "--monitor http://0.0.0.0:") || !strings.Contains(stderr, "connection refused") {
			t.Errorf("exit %d, stderr %q; want the harness error of a server that does not answer", code, stderr)
		}
	})
}

// TestExternalRefusesMissingPermissions: against a real (in-process)
// server, a user who may not create streams is refused in one line that
// names the subject, and nothing is left in the account.
func TestExternalRefusesMissingPermissions(t *testing.T) {
	ps := closedPorts(t, 2)
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: ps[0], HTTPHost: "127.0.0.1", HTTPPort: ps[1],
		JetStream: true, StoreDir: t.TempDir(), ServerName: "solo", NoLog: true, NoSigs: true,
		Users: []*server.User{{Username: "ro", Password: "pw", Permissions: &server.Permissions{
			Publish: &server.SubjectPermission{Allow: []string{">"}, Deny: []string{"$JS.API.STREAM.CREATE.>"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	defer s.Shutdown()
	if !s.ReadyForConnections(5 * time.Second) {
		t.Fatal("server not ready")
	}
	dir := t.TempDir()
	cmd := []string{"run", "--runtime", "external", "--server", fmt.Sprintf("nats://127.0.0.1:%d", ps[0]),
		"--monitor", fmt.Sprintf("http://127.0.0.1:%d", ps[1]), "--user", "ro", "--replicas", "1", "--time-limit", "1s"}
	code, _, stderr := chaos(t, dir, append(cmd, "--password", "wrong")...)
	if code != run.ExitUsage || !strings.Contains(stderr, "Authorization Violation: check --creds, --nkey or --user/--password") {
		t.Errorf("wrong password: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = chaos(t, dir, append(cmd, "--password", "pw")...)
	want := `the account lacks a permission the run needs, to create stream KV_chaos_`
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code != run.ExitUsage || len(lines) != 1 ||
		!strings.Contains(stderr, want) || !strings.Contains(stderr, `Permissions Violation for Publish to "$JS.API.STREAM.CREATE.KV_chaos_`) {
		t.Errorf("exit %d, stderr %q; want one usage line containing %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "store")); err == nil {
		t.Errorf("a store was created")
	}
	if n := s.GlobalAccount().JetStreamUsage().Streams; n != 0 {
		t.Errorf("%d streams left in the account", n)
	}
}

func TestConfirmRemote(t *testing.T) {
	local := external.Options{Servers: []string{"nats://127.0.0.1:4222"}, Monitors: []string{"http://localhost:8222"}}
	remote := external.Options{Servers: []string{"nats://nats-0.nats-headless:4222", "nats://nats-1.nats-headless:4222"},
		Monitors: []string{"http://nats-0.nats-headless:8222", "http://nats-1.nats-headless:8222"}}
	cases := []struct {
		name     string
		o        external.Options
		yes, tty bool
		answer   string
		want     string // "" = go on
	}{
		{"loopback needs nothing", local, false, false, "", ""},
		{"--yes", remote, true, false, "", ""},
		{"no terminal", remote, false, false, "", "nats-0.nats-headless, nats-1.nats-headless are not on this machine: pass --yes"},
		{"yes at the prompt", remote, false, true, "yes\n", ""},
		{"y at the prompt", remote, false, true, "Y\n", ""},
		{"anything else", remote, false, true, "sure\n", "not confirmed: nothing was started"},
		{"end of input", remote, false, true, "", "not confirmed"},
	}
	for _, c := range cases {
		var prompt strings.Builder
		err := confirmRemote(c.o, c.yes, c.tty, strings.NewReader(c.answer), &prompt)
		switch {
		case c.want == "" && err != nil, c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if c.tty && !strings.Contains(prompt.String(), "nats://nats-1.nats-headless:4222") {
			t.Errorf("%s: the prompt does not name the servers: %q", c.name, prompt.String())
		}
	}
}

func TestRerunCommandNeverHoldsThePassword(t *testing.T) {
	c := runCmd([]string{"run"})
	if err := c.Flags().Parse([]string{"--runtime", "external", "--user", "u", "--password", "s3cret", "--fault-hook", "kill=docker kill {node}"}); err != nil {
		t.Fatal(err)
	}
	got := rerunCommand(c, 7)
	if strings.Contains(got, "s3cret") || !strings.Contains(got, `--password="$NATS_PASSWORD"`) || !strings.Contains(got, `--fault-hook='kill=docker kill {node}'`) {
		t.Errorf("rerun command %s", got)
	}
}

func TestVersionLabel(t *testing.T) {
	one := &cluster.External{Servers: []cluster.ExternalServer{{Version: "2.10.22"}, {Version: "2.10.22"}}}
	mixed := &cluster.External{Servers: []cluster.ExternalServer{{Version: "2.11.0"}, {Version: "2.10.22"}, {Version: "2.12.0-RC.1+x"}}}
	if v := versionLabel(one); v != "v2.10.22" {
		t.Errorf("one version: %s", v)
	}
	if v := versionLabel(mixed); v != "v2.10.22-and-v2.11.0-and-v2.12.0-RC.1-x" {
		t.Errorf("mixed versions: %s", v)
	}
}
