package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/external"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
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
			"nemesis kill refused: unsupported: the external runtime cannot kill a node (kill): no --fault-hook kill given"},
		{"kill without start", []string{"--server", servers, "--monitor", monitors, "--nemesis", "kill", "--fault-hook", "kill=docker kill {node}"},
			"no --fault-hook start given (the heal of --fault-hook kill runs it)"},
		{"partition without heal", []string{"--server", servers, "--monitor", monitors, "--nemesis", "partition-one", "--fault-hook", "partition=x {nodes}"},
			"no --fault-hook heal given"},
		{"log trigger", []string{"--server", servers, "--monitor", monitors, "--nemesis", "kill@log:/Catchup for stream/",
			"--fault-hook", "kill=x {node}", "--fault-hook", "start=x {node}"},
			"log triggers cannot be followed (events from the monitoring endpoints can)"},
		{"network shaping", []string{"--server", servers, "--monitor", monitors, "--nemesis", "latency"}, "there is no hook for network shaping"},
		{"restart hook", []string{"--server", servers, "--monitor", monitors, "--fault-hook", "restart=x"}, "the restart fault runs the stop hook, then start"},
		{"a typo in a hook", []string{"--server", servers, "--monitor", monitors, "--fault-hook", "kill=docker kill {nod}"}, "unknown variable {nod}"},
		{"server version", []string{"--server", servers, "--monitor", monitors, "--server-version", "v2.10.7"}, "--server-version does not apply to --runtime external"},
		{"catchup without its hooks", []string{"--workload", "catchup", "--server", servers, "--monitor", monitors},
			"the catchup workload: unsupported: the external runtime cannot kill a node (kill): no --fault-hook kill given"},
		{"catchup with a memory limit", []string{"--workload", "catchup", "--server", servers, "--monitor", monitors, "--memory-limit", "160MiB",
			"--fault-hook", "kill=x {node}", "--fault-hook", "start=x {node}", "--fault-hook", "wipe=x {node}"},
			"--memory-limit 160MiB: unsupported: the external runtime cannot limit a node's memory (memory-limit)"},
		{"remote without --yes", []string{"--server", remote, "--monitor", remoteMon}, "0.0.0.0 is not on this machine: pass --yes to run against nats://0.0.0.0:"},
		{"route pings", []string{"--server", servers, "--monitor", monitors, "--route-ping-interval", "2s"}, "--route-ping-interval does not apply to --runtime external"},
		{"one server", []string{"--server", "nats://127.0.0.1:4222", "--monitor", "http://127.0.0.1:8222"}, "--server lists one server"},
		{"bad prefix", []string{"--server", servers, "--monitor", monitors, "--name-prefix", "a.b"}, `--name-prefix "a.b"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(append([]string{}, ext...), c.args...)
			if strings.HasPrefix(c.name, "catchup") { // it runs through its phases: no --time-limit
				args = append([]string{"run", "--runtime", "external"}, c.args...)
			}
			code, _, stderr := chaos(t, dir, args...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != record.ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and one line containing %q", code, stderr, record.ExitUsage, c.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "store")); err == nil {
				t.Errorf("a store was created")
			}
		})
	}
	t.Run("external flags on another runtime", func(t *testing.T) {
		code, _, stderr := chaos(t, t.TempDir(), "run", "--runtime", "local", "--server", servers)
		if code != record.ExitUsage || !strings.Contains(stderr, "--server applies to --runtime external only") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
	t.Run("remote with --yes goes on to connect", func(t *testing.T) {
		code, _, stderr := chaos(t, t.TempDir(), append(ext, "--server", remote, "--monitor", remoteMon, "--yes", "--connect-timeout", "2s")...)
		if code != record.ExitHarness || !strings.Contains(stderr, "--monitor http://0.0.0.0:") || !strings.Contains(stderr, "connection refused") {
			t.Errorf("exit %d, stderr %q; want the harness error of a server that does not answer", code, stderr)
		}
	})
}

// readmeGrants are the permissions the README lists for the run's user.
var readmeGrants = &server.Permissions{
	Publish: &server.SubjectPermission{Allow: []string{"$JS.API.INFO", "$JS.API.STREAM.CREATE.*", "$JS.API.STREAM.UPDATE.*",
		"$JS.API.STREAM.INFO.*", "$JS.API.STREAM.DELETE.*", "$JS.API.STREAM.MSG.GET.*", "$JS.API.DIRECT.GET.>",
		"$JS.API.CONSUMER.>", "$JS.API.STREAM.LEADER.STEPDOWN.*", "$KV.>"}},
	Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>"}},
}

// inProcessCluster starts three routed JetStream servers with these users
// on 127.0.0.1 and returns their client and monitoring URLs.
func inProcessCluster(t *testing.T, users []*server.User) (servers, monitors string) {
	t.Helper()
	ps := closedPorts(t, 9)
	var routes []*url.URL
	for i := range 3 {
		routes = append(routes, server.RoutesFromStr(fmt.Sprintf("nats://127.0.0.1:%d", ps[3*i+2]))...)
	}
	var ss, ms []string
	for i := range 3 {
		s, err := server.NewServer(&server.Options{ServerName: fmt.Sprintf("s%d", i+1), Host: "127.0.0.1", Port: ps[3*i],
			HTTPHost: "127.0.0.1", HTTPPort: ps[3*i+1], JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "test", Host: "127.0.0.1", Port: ps[3*i+2]}, Routes: routes, Users: users})
		if err != nil {
			t.Fatal(err)
		}
		s.Start()
		t.Cleanup(s.Shutdown)
		if !s.ReadyForConnections(10 * time.Second) {
			t.Fatal("server not ready")
		}
		ss, ms = append(ss, s.ClientURL()), append(ms, fmt.Sprintf("http://127.0.0.1:%d", ps[3*i+1]))
	}
	return strings.Join(ss, ","), strings.Join(ms, ",")
}

// TestExternalPermissions: against a real (in-process) cluster, a user who
// may not create streams is refused in one line that names the subject,
// and nothing is left in the account; a user with exactly the grants the
// README lists runs kv-update with a stepdown fault through, its clients
// authenticated, and leaves nothing either.
func TestExternalPermissions(t *testing.T) {
	t.Parallel()
	servers, monitors := inProcessCluster(t, []*server.User{
		{Username: "admin", Password: "pw"},
		{Username: "ro", Password: "pw", Permissions: &server.Permissions{
			Publish: &server.SubjectPermission{Allow: []string{">"}, Deny: []string{"$JS.API.STREAM.CREATE.>"}}}},
		{Username: "minimal", Password: "pw", Permissions: readmeGrants},
	})
	dir := t.TempDir()
	cmd := func(user, password string, more ...string) []string {
		return append([]string{"run", "--runtime", "external", "--server", servers, "--monitor", monitors,
			"--user", user, "--password", password, "--time-limit", "1s"}, more...)
	}
	code, _, stderr := chaos(t, dir, cmd("ro", "wrong")...)
	if code != record.ExitUsage || !strings.Contains(stderr, "Authorization Violation: check --creds, --nkey or --user/--password") {
		t.Errorf("wrong password: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = chaos(t, dir, cmd("ro", "pw")...)
	want := `the account lacks a permission the run needs, to create stream KV_chaos_`
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code != record.ExitUsage || len(lines) != 1 ||
		!strings.Contains(stderr, want) || !strings.Contains(stderr, `Permissions Violation for Publish to "$JS.API.STREAM.CREATE.KV_chaos_`) {
		t.Errorf("exit %d, stderr %q; want one usage line containing %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "store")); err == nil {
		t.Errorf("a store was created")
	}
	if n := streamCount(t, servers); n != 0 {
		t.Errorf("%d streams left in the account after the refusal", n)
	}
	code, stdout, stderr := chaos(t, dir, cmd("minimal", "pw", "--keys", "2", "--clients", "2", "--time-limit", "6s",
		"--nemesis", "stepdown", "--nemesis-interval", "2s")...)
	if code != record.ExitValid && code != record.ExitInvalid { // with Direct Get on, stale reads may show: a finding, not a failure
		t.Errorf("the README's grants: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "verified  inject: leader moved") || strings.Contains(stdout, "harness error") {
		t.Errorf("the stepdown did not run as the README's user:\n%s", stdout)
	}
	if n := streamCount(t, servers); n != 0 {
		t.Errorf("%d streams left in the account after the run", n)
	}
}

func streamCount(t *testing.T, servers string) int {
	t.Helper()
	nc, err := nats.Connect(servers, nats.UserInfo("admin", "pw"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ai, err := js.AccountInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ai.Streams
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

// A rerun pins the workload and its own flags at the values the run had:
// a later toolkit with other defaults still runs the same cell.
func TestRerunCommandPinsTheWorkloadsFlags(t *testing.T) {
	c := runCmd([]string{"run"})
	if err := c.Flags().Parse([]string{"--direct-get", "off", "--keys", "20"}); err != nil {
		t.Fatal(err)
	}
	got := rerunCommand(c, 7)
	for _, want := range []string{"--workload=kv-update", "--history=1", "--keys=20", "--direct-get=off", "--clients=10", "--seed=7"} {
		if !strings.Contains(got, " "+want) {
			t.Errorf("rerun command %s: no %s", got, want)
		}
	}
	if strings.Contains(got, "--time-limit") || strings.Contains(got, "--store") {
		t.Errorf("rerun command %s: pins a flag that is not the workload's", got)
	}
	t.Log(got)
}

// A rerun of a preset pins the preset's values, not the flags' defaults,
// and a size no flag gave (--backlog) at the cell's value.
func TestRerunCommandPinsThePresetsValues(t *testing.T) {
	args := []string{"--workload", "catchup", "--preset", "seed-loop", "--direct-get", "off"}
	cmd, f := newRun(args)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	s, err := f.spec(cmd)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--preset=seed-loop", "--backlog=1GiB", "--crash-loop=3", "--gomemlimit=off", "--rate=5MB", "--memory-limit=384MiB", "--publishers=4"} {
		if !strings.Contains(s.Command, " "+want) {
			t.Errorf("rerun command %s: no %s", s.Command, want)
		}
	}
}

// TestNameStreams: every workload's cells create their streams under the
// run's name on --runtime external, as the preflight probes them, and the
// spec records the named settings (kv-update's bucket, the stream of
// the others, whose subjects follow in lower case), and the preflight
// learns what the stream allows.
func TestNameStreams(t *testing.T) {
	for _, tc := range []struct {
		workload string
		settings string
		want     external.Stream
	}{
		{"kv-update", `{"replicas":3}`, external.Stream{Name: "KV_chaos_ab12", Filter: "$KV.chaos_ab12.>", Subject: "$KV.chaos_ab12.chaos-preflight", Replicas: 3, DirectGet: true}},
		{"queue", `{"replicas":1}`, external.Stream{Name: "chaos_ab12", Filter: "chaos_ab12.>", Subject: "chaos_ab12.chaos-preflight", Replicas: 1, Acks: true}},
		{"catchup", `{}`, external.Stream{Name: "chaos_ab12", Filter: "chaos_ab12.>", Subject: "chaos_ab12.chaos-preflight", Replicas: 3, DirectGet: true}},
		{"batch", `{"replicas":3}`, external.Stream{Name: "chaos_ab12", Filter: "chaos_ab12.>", Subject: "chaos_ab12.chaos-preflight", Replicas: 3, DirectGet: true, AtomicPublish: true}},
		{"counter", `{"replicas":3}`, external.Stream{Name: "chaos_ab12", Filter: "chaos_ab12.>", Subject: "chaos_ab12.chaos-preflight", Replicas: 3, DirectGet: true, Counters: true}},
	} {
		s := record.Spec{Workload: tc.workload, Settings: []json.RawMessage{json.RawMessage(tc.settings), json.RawMessage(tc.settings)}}
		got, err := nameStreams(&s, "chaos_ab12")
		if err != nil || len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s: %+v, %v; want [%+v]", tc.workload, got, err, tc.want)
			continue
		}
		for _, raw := range s.Settings {
			if !strings.Contains(string(raw), `"chaos_ab12"`) {
				t.Errorf("%s: recorded settings %s do not name the run's stream", tc.workload, raw)
			}
		}
	}
}

// TestDirectGetOnlyWhereRead: Direct Get is an axis of the workloads that
// read through it; queue's cells run with it off, and asking for it is a
// usage error naming why.
func TestDirectGetOnlyWhereRead(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		cells []bool
		err   string
	}{
		{[]string{"--workload", "kv-update"}, []bool{true, false}, ""},
		{[]string{"--workload", "catchup"}, []bool{true, false}, ""},
		{[]string{"--workload", "queue"}, []bool{false}, ""},
		{[]string{"--workload", "queue", "--direct-get", "off"}, []bool{false}, ""},
		{[]string{"--workload", "queue", "--direct-get", "both"}, nil, "--direct-get both does not apply to --workload queue: it reads nothing through Direct Get"},
		{[]string{"--workload", "queue", "--direct-get", "on"}, nil, "--direct-get on does not apply to --workload queue"},
	} {
		cmd, f := newRun(tc.args)
		if err := cmd.ParseFlags(tc.args); err != nil {
			t.Fatal(err)
		}
		s, err := f.spec(cmd)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v: %v; want %q", tc.args, err, tc.err)
		case tc.err == "" && (err != nil || fmt.Sprint(s.DirectGet) != fmt.Sprint(tc.cells)):
			t.Errorf("%v: Direct Get %v, %v; want %v", tc.args, s.DirectGet, err, tc.cells)
		}
	}
}

// streamless is a workload whose plan names no stream: on --runtime
// external the run could not keep to what it creates, so it is refused.
type streamless struct{ workloads.Workload }

type streamlessSettings struct{ workloads.Settings }

func (streamless) Name() string                            { return "streamless-test" }
func (streamless) Doc() string                             { return "a test workload that names no stream" }
func (streamless) Flags(*pflag.FlagSet) workloads.Expander { return nil }
func (streamless) Decode(json.RawMessage) (workloads.Settings, error) {
	return streamlessSettings{}, nil
}
func (s streamlessSettings) Named(string) workloads.Settings { return s }
func (streamlessSettings) Plan(base cluster.Config) workloads.Plan {
	return workloads.Plan{Cluster: base}
}

func TestNameStreamsRefusesAPlanWithoutStreams(t *testing.T) {
	workloads.Register(streamless{})
	s := record.Spec{Workload: "streamless-test", Settings: []json.RawMessage{json.RawMessage(`{}`)}}
	if _, err := nameStreams(&s, "chaos_ab12"); err == nil || !strings.Contains(err.Error(), "names no stream it creates") {
		t.Fatalf("%v; want a refusal naming why", err)
	}
}

// TestRefuseOlderServers: on a cluster the run did not start, the versions
// the servers report stand for --server-version: a server older than the
// workload's feature refuses the run before anything starts, naming it.
func TestRefuseOlderServers(t *testing.T) {
	for _, tc := range []struct {
		workload string
		versions map[string]string
		want     string // "" = goes on
	}{
		{"batch", map[string]string{"n1": "2.15.3", "n2": "2.12.0", "n3": "2.14.10"}, ""},
		{"counter", map[string]string{"n1": "2.12.0-dev", "n2": "2.12.0+abc"}, ""}, // the API level decides at setup
		{"batch", map[string]string{"n1": "2.15.3", "n2": "2.11.8", "n3": "2.15.3"},
			"--workload batch needs atomic batch publish (ADR-50), which came in nats-server v2.12.0; server n2 runs 2.11.8"},
		{"counter", map[string]string{"a": "2.10.27", "b": "2.11.8"},
			"--workload counter needs distributed counters (ADR-49), which came in nats-server v2.12.0; server a runs 2.10.27"},
		{"kv-update", map[string]string{"n1": "2.10.7"}, ""},
		{"queue", map[string]string{"n1": ""}, ""},
		{"batch", map[string]string{"n1": ""}, ""}, // no version reported: the API level decides at setup
	} {
		args := []string{"--workload", tc.workload}
		cmd, f := newRun(args)
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		s, err := f.spec(cmd)
		if err != nil {
			t.Fatal(err)
		}
		err = run.RefuseOlderServers(s, tc.versions)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s on %v: %v", tc.workload, tc.versions, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%s on %v: %v, want %q", tc.workload, tc.versions, err, tc.want)
		}
	}
}

// TestExternalBatchAndCounter runs the two workloads of JetStream's newest
// features on a cluster the toolkit did not start (in-process, so without
// Docker), through a stepdown: the preflight probes an atomic batch and a
// counter add on the probe stream, every connection logs in, the leader
// moves, every check reaches a verdict on every replica's copy, and the
// account is left as it was.
func TestExternalBatchAndCounter(t *testing.T) {
	t.Parallel()
	servers, monitors := inProcessCluster(t, []*server.User{{Username: "admin", Password: "pw"}})
	for _, tc := range []struct{ workload, writes, reads string }{
		{"batch", "batch", "batch-read"},
		{"counter", "counter-add", "counter-read"},
	} {
		workload := tc.workload
		t.Run(workload, func(t *testing.T) {
			dir := t.TempDir()
			code, stdout, stderr := chaos(t, dir, "run", "--runtime", "external", "--workload", workload,
				"--server", servers, "--monitor", monitors, "--user", "admin", "--password", "pw",
				"--time-limit", "6s", "--nemesis", "stepdown", "--nemesis-interval", "2s", "--direct-get", "off", "--seed", "3")
			if code != record.ExitValid {
				t.Fatalf("exit %d, want %d (valid)\n%s\n%s", code, record.ExitValid, stdout, stderr)
			}
			if !strings.Contains(stdout, "verified  inject: leader moved") || strings.Contains(stdout, "harness error") {
				t.Errorf("the stepdown did not run:\n%s", stdout)
			}
			res := namedRun(t, filepath.Join(dir, "store", "latest"), workload)
			if len(res.Cells) != 1 {
				t.Fatalf("%d cells", len(res.Cells))
			}
			if ops := res.Cells[0].Ops.ByType; ops[tc.writes] < 10 || ops[tc.reads] == 0 {
				t.Errorf("ops %v: want at least 10 %s and some %s", ops, tc.writes, tc.reads)
			}
			names := map[string]bool{}
			for _, c := range res.Cells[0].Checks {
				names[c.Name] = true
				if c.Verdict != checker.Valid {
					t.Errorf("check %s: %s (%s)", c.Name, c.Verdict, c.Summary)
				}
			}
			if !names["replica-divergence"] {
				t.Errorf("no replica-divergence among %v", names)
			}
			if n := streamCount(t, servers); n != 0 {
				t.Errorf("%d streams left in the account after the run", n)
			}
		})
	}
}
