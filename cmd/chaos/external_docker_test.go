package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// TestExternalDockerIntegration is the acceptance of --runtime external:
// a cluster started with `chaos cluster up --detach` is run against as a
// cluster the toolkit did not start, kv-update with Direct Get on and off
// and kill faults through `docker kill`/`docker start` hooks. The findings
// must be those of a docker-runtime run (TestIntegrationDockerAcceptance in run/):
// stale reads with Direct Get on, none with it off; every kill verified by
// the usual checks; and afterwards the cluster holds nothing of the run.
//
// The cluster has client authentication on (--user, the password from
// $NATS_PASSWORD as a user would keep it): every connection of every
// workload, and of the pipeline, must log in.
func TestExternalDockerIntegration(t *testing.T) {
	t.Parallel()
	testenv.Require(t, testenv.Docker(docker.Available))
	repo, _ := filepath.Abs("../..") // the docker runtime builds its helper from the checkout
	store := t.TempDir()
	code, stdout, stderr := chaosLoggedIn(t, repo, "cluster", "up", "--detach", "--runtime", "docker", "--store", store, "--user", extUser)
	if code != 0 {
		t.Fatalf("cluster up --detach: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var id string
	t.Cleanup(func() {
		if code, out, errOut := chaosLoggedIn(t, repo, "cluster", "down", "--store", store); code != 0 {
			t.Errorf("cluster down: exit %d %s %s", code, out, errOut)
		}
		if out, _ := exec.Command("docker", "ps", "-aq", "--filter", "label=io.jetstream-chaos.cluster="+id).Output(); id != "" && len(out) > 0 {
			t.Errorf("containers left after cluster down: %s", out)
		}
	})
	var nodes []cluster.Node
	b, err := os.ReadFile(filepath.Join(store, "cluster", "nodes.json"))
	if err != nil || json.Unmarshal(b, &nodes) != nil || len(nodes) != 3 {
		t.Fatalf("nodes.json: %v %s", err, b)
	}
	// The hooks name containers by the selector `cluster up` wrote, which
	// names this cluster's own run label, never a label every manual
	// cluster shares: another cluster may be up on this machine.
	raw, err := os.ReadFile(filepath.Join(store, "cluster", HookSelectorFile))
	if err != nil {
		t.Fatal(err)
	}
	sel := strings.TrimSpace(string(raw))
	port := nodes[0].ClientURL[strings.LastIndex(nodes[0].ClientURL, ":")+1:]
	out, err := exec.Command("docker", "ps", "--filter", "publish="+port, "--format", `{{.Label "io.jetstream-chaos.cluster"}}`).Output()
	id = strings.TrimSpace(string(out))
	if err != nil || id == "" || strings.Contains(id, "\n") {
		t.Fatalf("the cluster's label: %q %v", out, err)
	}
	n1 := strings.Fields(strings.ReplaceAll(sel, "{node}", "n1"))
	out, err = exec.Command("docker", append(append([]string{"ps"}, n1...), "--format", `{{.Label "io.jetstream-chaos.cluster"}}`)...).Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != id {
		t.Fatalf("%s with n1 selects clusters %q (%v), want exactly this one, %s", HookSelectorFile, got, err, id)
	}
	var servers, monitors []string
	for _, n := range nodes {
		servers, monitors = append(servers, n.ClientURL), append(monitors, n.MonitorURL)
	}
	if nc, err := nats.Connect(servers[0]); err == nil {
		nc.Close()
		t.Fatal("the cluster lets a client in without credentials")
	}
	userData(t, servers)
	before := accountState(t, servers)

	code, stdout, stderr = chaosLoggedIn(t, repo, "run", "--runtime", "external", "--workload", "kv-update", "--direct-get", "both",
		"--server", strings.Join(servers, ","), "--monitor", strings.Join(monitors, ","), "--store", filepath.Join(store, "runs"),
		"--time-limit", "20s", "--nemesis", "kill", "--nemesis-interval", "4s", "--seed", "7", "--user", extUser,
		"--fault-hook", "kill=docker kill $(docker ps -q "+sel+")", "--fault-hook", "start=docker start $(docker ps -aq "+sel+")")
	if code != record.ExitInvalid {
		t.Fatalf("run: exit %d, want %d (stale reads with Direct Get on)\n%s\n%s", code, record.ExitInvalid, stdout, stderr)
	}
	dir := filepath.Join(store, "runs", "latest")
	var res record.Result
	if b, err := os.ReadFile(filepath.Join(dir, "results.json")); err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("results.json: %v", err)
	}
	res.Resolve(dir) // its folders are relative to the run folder
	checkExternalRecord(t, res, nodes)
	if len(res.Cells) != 2 {
		t.Fatalf("%d cells", len(res.Cells))
	}
	for _, c := range res.Cells {
		checkExternalCell(t, c)
	}
	for _, f := range []string{"junit.xml", "report.html"} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if !strings.Contains(string(b), "not started by the toolkit: n1 (") {
			t.Errorf("%s does not say the cluster was external", f)
		}
	}
	if after := accountState(t, servers); after != before {
		t.Errorf("the cluster after the run: %s; before: %s", after, before)
	}
	externalQueue(t, repo, store, servers, monitors, sel, before)
	externalCatchup(t, repo, store, servers, monitors, sel, before)
	externalSources(t, repo, store, servers, monitors, sel, before)
}

// namedRun reads the results of a run of workload on the external cluster
// and requires its one stream named under the run's name.
func namedRun(t *testing.T, dir, workload string) record.Result {
	t.Helper()
	var res record.Result
	if b, err := os.ReadFile(filepath.Join(dir, "results.json")); err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("%s results.json: %v", workload, err)
	}
	res.Resolve(dir)
	if x := res.Spec.Cluster.External; x == nil || len(x.Streams) != 1 || !strings.HasPrefix(x.Streams[0], "chaos_") {
		t.Errorf("%s run: streams %+v, want one chaos_<random>", workload, x)
	}
	return res
}

// The external cluster's client login; the password reaches the chaos
// processes through $NATS_PASSWORD only.
const (
	extUser     = "chaos-app"
	extPassword = "s3cret-for-the-test"
)

// login is the test's own connections' login to the external cluster.
func login() nats.Option { return nats.UserInfo(extUser, extPassword) }

// externalCatchup runs the catch-up workload on the same cluster through
// the kill, start and wipe hooks (the wipe deletes the stopped node's
// store from the host, as the docker runtime does): its stream is named
// under the run's name, the replica catches up, every acknowledged
// message is there, and the run leaves the account as it found it.
func externalCatchup(t *testing.T, repo, store string, servers, monitors []string, sel, before string) {
	t.Helper()
	data := filepath.Join(store, "cluster", "data", "{node}")
	code, stdout, stderr := chaosLoggedIn(t, repo, "run", "--runtime", "external", "--workload", "catchup",
		"--server", strings.Join(servers, ","), "--monitor", strings.Join(monitors, ","), "--store", filepath.Join(store, "catchup-runs"),
		"--backlog", "16MiB", "--rate", "1MiB", "--down", "2s", "--settle", "2s", "--catchup-timeout", "45s", "--direct-get", "off", "--user", extUser,
		"--fault-hook", "kill=docker kill $(docker ps -q "+sel+")", "--fault-hook", "start=docker start $(docker ps -aq "+sel+")",
		"--fault-hook", "wipe=rm -rf "+data+" && mkdir -p "+data)
	if code != record.ExitValid {
		t.Fatalf("catchup run: exit %d, want %d\n%s\n%s", code, record.ExitValid, stdout, stderr)
	}
	res := namedRun(t, filepath.Join(store, "catchup-runs", "latest"), "catchup")
	if len(res.Cells) != 1 || res.Cells[0].Ops.ByType["publish"] == 0 {
		t.Fatalf("catchup run: %d cells, want one with its publishes counted", len(res.Cells))
	}
	for _, c := range res.Cells[0].Checks {
		if c.Verdict != checker.Valid {
			t.Errorf("catchup check %s: %s (%s)", c.Name, c.Verdict, c.Summary)
		}
	}
	if after := accountState(t, servers); after != before {
		t.Errorf("the cluster after the catchup run: %s; before: %s", after, before)
	}
}

// externalQueue runs the queue workload on the same cluster: its stream is
// named under the run's name like kv-update's bucket, the kill is verified
// through the hooks, the cell reaches a verdict, and the run leaves the
// account as it found it.
func externalQueue(t *testing.T, repo, store string, servers, monitors []string, sel, before string) {
	t.Helper()
	code, stdout, stderr := chaosLoggedIn(t, repo, "run", "--runtime", "external", "--workload", "queue",
		"--server", strings.Join(servers, ","), "--monitor", strings.Join(monitors, ","), "--store", filepath.Join(store, "queue-runs"),
		"--time-limit", "12s", "--nemesis", "kill", "--nemesis-interval", "4s", "--seed", "7", "--ack-wait", "2s", "--stall-bound", "10s", "--drain-timeout", "30s",
		"--user", extUser,
		"--fault-hook", "kill=docker kill $(docker ps -q "+sel+")", "--fault-hook", "start=docker start $(docker ps -aq "+sel+")")
	if code != record.ExitValid && code != record.ExitInvalid {
		t.Fatalf("queue run: exit %d, want a verdict (%d or %d)\n%s\n%s", code, record.ExitValid, record.ExitInvalid, stdout, stderr)
	}
	res := namedRun(t, filepath.Join(store, "queue-runs", "latest"), "queue")
	if len(res.Cells) != 1 || res.Cells[0].DirectGet {
		t.Fatalf("queue run: %d cells, want one with Direct Get off", len(res.Cells))
	}
	c := res.Cells[0]
	if c.Error != "" || len(c.Checks) == 0 {
		t.Fatalf("queue cell: error %q, %d checks", c.Error, len(c.Checks))
	}
	verified := false
	for _, w := range c.Faults {
		verified = verified || (w.Fault == "kill" && w.Injected && w.Verified)
	}
	if !verified {
		t.Errorf("queue cell: no verified kill in %+v", c.Faults)
	}
	if after := accountState(t, servers); after != before {
		t.Errorf("the cluster after the queue run: %s; before: %s", after, before)
	}
}

// userData is what a staging cluster holds before the run: a bucket and a
// stream with a durable consumer, which the run must leave as they are.
func userData(t *testing.T, servers []string) {
	t.Helper()
	nc, err := nats.Connect(strings.Join(servers, ","), nats.IgnoreDiscoveredServers(), login())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Like the toolkit's own setup, the operator's data rides out the
	// placement refusal (10005) of a cluster that just became ready
	// (client.RetryTransient; a clean-clone CI run met it here).
	var kv jetstream.KeyValue
	if err := client.RetryTransient(ctx, 30*time.Second, func(ctx context.Context) (err error) {
		kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "users", Replicas: 3})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "alice", []byte("1")); err != nil {
		t.Fatal(err)
	}
	var orders jetstream.Stream
	if err := client.RetryTransient(ctx, 30*time.Second, func(ctx context.Context) (err error) {
		orders, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}, Replicas: 3})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "orders.1", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := orders.CreateConsumer(ctx, jetstream.ConsumerConfig{Durable: "billing"}); err != nil {
		t.Fatal(err)
	}
}

// chaosLoggedIn runs chaos in dir with the cluster's password in
// $NATS_PASSWORD, as a user would keep it.
func chaosLoggedIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	return chaosEnv(t, dir, []string{"NATS_PASSWORD=" + extPassword}, args...)
}

// accountState is every stream with its consumers, and the account's
// counts, as one comparable line.
func accountState(t *testing.T, servers []string) string {
	t.Helper()
	nc, err := nats.Connect(strings.Join(servers, ","), nats.IgnoreDiscoveredServers(), login())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var streams []string
	l := js.ListStreams(ctx)
	for s := range l.Info() {
		streams = append(streams, fmt.Sprintf("%s(%d msgs, %d consumers)", s.Config.Name, s.State.Msgs, s.State.Consumers))
	}
	if l.Err() != nil {
		t.Fatal(l.Err())
	}
	slices.Sort(streams)
	ai, err := js.AccountInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("streams %v; account: %d streams, %d consumers", streams, ai.Streams, ai.Consumers)
}

func checkExternalRecord(t *testing.T, res record.Result, nodes []cluster.Node) {
	t.Helper()
	x := res.Spec.Cluster.External
	switch {
	case res.Runtime != "external":
		t.Errorf("runtime %q", res.Runtime)
	case x == nil || len(x.Servers) != 3:
		t.Fatalf("the run does not record the external cluster: %+v", x)
	case len(x.Streams) != 1 || !strings.HasPrefix(x.Streams[0], "KV_chaos_"):
		t.Errorf("streams %v, want one KV_chaos_<random>", x.Streams)
	case !strings.Contains(x.Hooks["kill"], "docker kill"):
		t.Errorf("hooks %v", x.Hooks)
	}
	for i, s := range x.Servers {
		if s.Name != nodes[i].Name || s.Version == "" || !strings.HasPrefix(s.ConfigDigest, "sha256:") {
			t.Errorf("server %d recorded as %+v", i, s)
		}
		if want := "v" + s.Version; res.Cells[0].ServerVersion != want {
			t.Errorf("cell server version %q, want %q", res.Cells[0].ServerVersion, want)
		}
	}
}

func checkExternalCell(t *testing.T, c record.CellResult) {
	t.Helper()
	if c.Error != "" {
		t.Fatalf("%s: %s", c.Name, c.Error)
	}
	kills := 0
	for _, w := range c.Faults {
		if w.Fault != "kill" {
			continue
		}
		kills++
		if !w.Injected || !w.Verified {
			t.Errorf("%s: kill window not verified: %+v", c.Name, w)
		}
	}
	if kills == 0 {
		t.Errorf("%s: no kill window in %+v", c.Name, c.Faults)
	}
	if c.Recovery == nil || !c.Recovery.Recovered {
		t.Errorf("%s: recovery %+v", c.Name, c.Recovery)
	}
	hooks, _ := os.ReadFile(filepath.Join(c.Dir, "logs", "hooks.log"))
	if !strings.Contains(string(hooks), "hook kill: docker kill") || !strings.Contains(string(hooks), "hook start: docker start") {
		t.Errorf("%s: hooks.log:\n%s", c.Name, hooks)
	}
	checks := map[string]checker.Result{}
	for _, ch := range c.Checks {
		checks[ch.Name] = ch
	}
	stale, session, integrity := checks["stale-read"], checks["session"], checks["stream-integrity"]
	if integrity.Verdict != checker.Valid {
		t.Errorf("%s: stream integrity %s: %s", c.Name, integrity.Verdict, integrity.Summary)
	}
	if c.DirectGet {
		if stale.Verdict != checker.Invalid || stale.Counts["stale_reads"] == 0 {
			t.Errorf("Direct Get on: want stale reads, got %s: %s", stale.Verdict, stale.Summary)
		}
		return
	}
	if stale.Verdict != checker.Valid || session.Verdict != checker.Valid {
		t.Errorf("Direct Get off: stale-read %s (%s), session %s (%s)", stale.Verdict, stale.Summary, session.Verdict, session.Summary)
	}
}

// externalSources runs the sources workload on the same cluster, the kill
// aimed at the sourced stream's leader through the hooks: its origins,
// mirror and sourced stream are all named under the run's name, the cell
// reaches a verdict with every copy read back, and the run leaves the
// account as it found it.
func externalSources(t *testing.T, repo, store string, servers, monitors []string, sel, before string) {
	t.Helper()
	code, stdout, stderr := chaosLoggedIn(t, repo, "run", "--runtime", "external", "--workload", "sources",
		"--server", strings.Join(servers, ","), "--monitor", strings.Join(monitors, ","), "--store", filepath.Join(store, "sources-runs"),
		"--time-limit", "12s", "--nemesis", "kill", "--nemesis-interval", "4s", "--seed", "7", "--fault-target", "sourced", "--user", extUser,
		"--fault-hook", "kill=docker kill $(docker ps -q "+sel+")", "--fault-hook", "start=docker start $(docker ps -aq "+sel+")")
	if code != record.ExitValid && code != record.ExitInvalid {
		t.Fatalf("sources run: exit %d, want a verdict (%d or %d)\n%s\n%s", code, record.ExitValid, record.ExitInvalid, stdout, stderr)
	}
	dir := filepath.Join(store, "sources-runs", "latest")
	var res record.Result
	if b, err := os.ReadFile(filepath.Join(dir, "results.json")); err != nil || json.Unmarshal(b, &res) != nil {
		t.Fatalf("sources results.json: %v", err)
	}
	res.Resolve(dir)
	x := res.Spec.Cluster.External
	if x == nil || len(x.Streams) != 4 {
		t.Fatalf("sources run: streams %+v, want two origins, a mirror and the sourced stream", x)
	}
	for _, s := range x.Streams {
		if !strings.HasPrefix(s, "chaos_") {
			t.Errorf("sources run: stream %s not named under the run's name", s)
		}
	}
	if len(res.Cells) != 1 || res.Cells[0].Error != "" || len(res.Cells[0].Checks) < 7 {
		t.Fatalf("sources run: %d cells, want one with its checks: %+v", len(res.Cells), res.Cells)
	}
	for _, c := range res.Cells[0].Checks {
		if c.Verdict == checker.Unknown {
			t.Errorf("sources check %s: unknown (%s)", c.Name, c.Reason)
		}
	}
	if after := accountState(t, servers); after != before {
		t.Errorf("the cluster after the sources run: %s; before: %s", after, before)
	}
}
