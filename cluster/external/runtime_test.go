package external

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

func kvStream(bucket string, replicas int) Stream {
	return Stream{Name: "KV_" + bucket, Filter: "$KV." + bucket + ".>", Subject: "$KV." + bucket + ".probe", Replicas: replicas, DirectGet: true}
}

func newRuntime(t *testing.T, o Options) *Runtime {
	t.Helper()
	rt, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

func TestSurveyRecordsServersAndRefusesMismatches(t *testing.T) {
	tc := startCluster(t, 3, nil)
	ctx := context.Background()
	ext, err := newRuntime(t, tc.options()).Survey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range ext.Servers {
		// ConfigDigest stays empty here: these servers have no config file
		// (the Docker integration test checks it).
		if s.Name != tc.opts[i].ServerName || s.Version == "" || s.Cluster != "test" || s.Start.IsZero() {
			t.Errorf("server %d recorded as %+v", i, s)
		}
	}
	if v := ext.Versions(); len(v) != 1 {
		t.Errorf("versions %v", v)
	}
	refusals := []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"names", func(o *Options) { o.NodeNames = []string{"s1", "s3", "s2"} }, "--node-names says node 2 is s3 but --monitor"},
		{"order", func(o *Options) { o.Monitors[0], o.Monitors[1] = o.Monitors[1], o.Monitors[0] }, "give both lists in the same order"},
		{"same monitor", func(o *Options) { o.Monitors[1] = o.Monitors[0] }, "both reach server s1"},
		{"a server left out", func(o *Options) { o.Servers, o.Monitors = o.Servers[:2], o.Monitors[:2] }, "routes to s3, which is not in --server"},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			o := tc.options()
			r.mod(&o)
			if r.name == "same monitor" {
				o.Servers[1] = o.Servers[0] + "0" // keep --server unique; the monitor check comes first
				o.Servers[1] = strings.Replace(o.Servers[0], "127.0.0.1", "localhost", 1)
			}
			_, err := newRuntime(t, o).Survey(ctx)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), r.want) {
				t.Errorf("Survey: %v, want refused: %q", err, r.want)
			}
		})
	}
}

func TestSurveyRefusesBadCredentials(t *testing.T) {
	tc := startCluster(t, 1, func(_ int, o *server.Options) { o.Username, o.Password = "chaos", "secret" })
	ctx := context.Background()
	o := tc.options()
	o.Auth = Auth{User: "chaos", Password: "wrong"}
	if _, err := newRuntime(t, o).Survey(ctx); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "check --creds, --nkey or --user/--password") {
		t.Errorf("wrong password: %v", err)
	}
	o.Auth.Password = "secret"
	if _, err := newRuntime(t, o).Survey(ctx); err != nil {
		t.Errorf("right password: %v", err)
	}
}

// startOne connects a runtime to a cell on tc the way run.Execute does.
func startOne(t *testing.T, rt *Runtime, nodes int) *extCluster {
	t.Helper()
	c, err := rt.Start(context.Background(), cluster.Config{Nodes: nodes, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return c.(*extCluster)
}

func TestStateIsWhatTheMonitorShows(t *testing.T) {
	tc := startCluster(t, 1, nil)
	o := tc.options()
	o.Hooks = Hooks{"kill": "true", "start": "true"}
	c := startOne(t, newRuntime(t, o), 1)
	defer c.Close(context.Background())
	ctx := context.Background()
	st, err := c.State(ctx, 0)
	if err != nil || !st.Running || st.Paused || st.StartedAt.IsZero() {
		t.Fatalf("a running server: %+v, %v", st, err)
	}
	tc.stop(0)
	if st, err := c.State(ctx, 0); err != nil || st.Running {
		t.Errorf("a stopped server (monitor refuses): %+v, %v", st, err)
	}
	time.Sleep(1100 * time.Millisecond) // /varz start has a resolution of the clock; make the restart visible
	tc.start(0)
	if st, err := c.State(ctx, 0); err != nil || !st.Running || st.Restarts != 1 {
		t.Errorf("a server that restarted with no hook: %+v, %v; want one restart nobody asked for", st, err)
	}
	if err := c.Kill(ctx, 0); err != nil { // the hook does nothing; a new start time is now expected
		t.Fatal(err)
	}
	tc.stop(0)
	time.Sleep(1100 * time.Millisecond)
	tc.start(0)
	if st, err := c.State(ctx, 0); err != nil || !st.Running || st.Restarts != 1 {
		t.Errorf("a restart after the kill hook: %+v, %v; it must not count", st, err)
	}
}

// silentMonitor accepts connections and never answers, as a frozen
// process's socket does.
func silentMonitor(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() { l.Close() })
	return "http://" + l.Addr().String()
}

func TestSilenceIsPausedOnlyWhenTheRunPausedIt(t *testing.T) {
	mon := silentMonitor(t)
	o := Options{Servers: []string{"nats://127.0.0.1:1"}, Monitors: []string{mon}, ProbeTimeout: 200 * time.Millisecond,
		Hooks: Hooks{"pause": "true", "resume": "true", "kill": "true", "start": "true"}}
	rt := newRuntime(t, o)
	c := newCluster(rt, cluster.Config{Nodes: 1}, []cluster.Node{{Name: "s1", MonitorURL: mon}})
	ctx := context.Background()
	if _, err := c.State(ctx, 0); err == nil || !strings.Contains(err.Error(), "the run neither paused nor stopped it") {
		t.Errorf("silence nobody explains: %v, want an error", err)
	}
	if err := c.Resume(ctx, 0); err == nil || !strings.Contains(err.Error(), "did not pause it") {
		t.Errorf("resume of a node the run did not pause: %v", err)
	}
	if err := c.Pause(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if st, err := c.State(ctx, 0); err != nil || !st.Running || !st.Paused {
		t.Errorf("silence after the pause hook: %+v, %v; want paused", st, err)
	}
	if err := c.Resume(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if st, err := c.State(ctx, 0); err != nil || st.Running {
		t.Errorf("silence after the kill hook: %+v, %v; want not running", st, err)
	}
}

func TestHooksDriveTheControlsAndCloseUndoesWhatIsLeft(t *testing.T) {
	tc := startCluster(t, 3, nil)
	out := filepath.Join(t.TempDir(), "hooks.out")
	o := tc.options()
	o.Hooks = Hooks{
		"kill": "echo kill {node} {index} >> " + out, "start": "echo start {node} >> " + out,
		"partition": "echo partition {nodes}/{others}/{groups} >> " + out, "heal": "echo heal {nodes_csv} {others_csv} >> " + out,
	}
	c := startOne(t, newRuntime(t, o), 3)
	ctx := context.Background()
	lines := func() []string {
		b, _ := os.ReadFile(out)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	if err := c.Start(ctx, 1); err == nil || !strings.Contains(err.Error(), "s2: the run did not take it down") {
		t.Errorf("start of a node the run did not stop: %v", err)
	}
	if err := c.Heal(ctx); err != nil {
		t.Errorf("heal with no partition: %v", err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Kill(ctx, 1))
	must(c.Start(ctx, 1))
	must(c.Partition(ctx, [][]int{{0, 1}, {2}}))
	must(c.Heal(ctx))
	must(c.Partition(ctx, [][]int{{2, 0}})) // s2 in no group: cut off too
	// Left in force: the partition, and s1 killed (its server really stopped).
	must(c.Kill(ctx, 0))
	tc.stop(0)
	closeErr := c.Close(ctx)
	want := []string{"kill s2 1", "start s2", "partition s3/s1 s2/s1,s2 s3", "heal s3 s1,s2",
		"partition s2/s3 s1/s3,s1 s2", "kill s1 0", "heal s2 s3,s1", "start s1"}
	if got := lines(); !slices.Equal(got, want) {
		t.Errorf("hooks ran:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if closeErr == nil || !strings.Contains(closeErr.Error(), "delete the run's streams") {
		// s1 is still down (the start hook only echoes), so the admin
		// connection falls over to s2; nothing to delete either way.
		t.Logf("close: %v", closeErr)
	}
	tc.start(0)
	if b, err := os.ReadFile(filepath.Join(c.cfg.Dir, "logs", "hooks.log")); err != nil || !strings.Contains(string(b), "hook partition: echo partition s3/s1 s2") {
		t.Errorf("hooks.log: %v\n%s", err, b)
	}
}

func TestPartitionVarsDescribeTheSides(t *testing.T) {
	rt := newRuntime(t, Options{Servers: []string{"nats://127.0.0.1:1", "nats://127.0.0.1:2", "nats://127.0.0.1:3", "nats://127.0.0.1:4", "nats://127.0.0.1:5"},
		Monitors: []string{"http://127.0.0.1:1", "http://127.0.0.1:2", "http://127.0.0.1:3", "http://127.0.0.1:4", "http://127.0.0.1:5"},
		Hooks:    Hooks{"partition": "cut {nodes} from {others}", "heal": "h"}})
	var nodes []cluster.Node
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		nodes = append(nodes, cluster.Node{Name: n})
	}
	c := newCluster(rt, cluster.Config{Nodes: 5}, nodes)
	cases := []struct {
		groups              [][]int
		nodes, others, want string
		err                 string
	}{
		{groups: [][]int{{0, 1, 2}, {3, 4}}, nodes: "d e", others: "a b c", want: "a,b,c d,e"},
		{groups: [][]int{{4}, {0, 1, 2, 3}}, nodes: "e", others: "a b c d", want: "e a,b,c,d"},
		{groups: [][]int{{0, 1, 2, 3}}, nodes: "e", others: "a b c d", want: "a,b,c,d e"}, // e in no group
		{groups: [][]int{{0, 1}, {2, 3}, {4}}, err: "partition into 3 sides (a,b c,d e): the partition hook reads only {nodes} and {others}"},
		{groups: [][]int{{0, 1}, {1}}, err: "bad or repeated node 1"},
	}
	for _, k := range cases {
		v, err := c.partitionVars(k.groups)
		switch {
		case k.err != "":
			if err == nil || !strings.Contains(err.Error(), k.err) {
				t.Errorf("%v: %v, want %q", k.groups, err, k.err)
			}
		case err != nil:
			t.Errorf("%v: %v", k.groups, err)
		case v["nodes"] != k.nodes || v["others"] != k.others || v["groups"] != k.want ||
			v["nodes_csv"] != strings.ReplaceAll(k.nodes, " ", ",") || v["all"] != "a b c d e":
			t.Errorf("%v: %v", k.groups, v)
		}
	}
}

func TestTheRunTouchesOnlyItsOwnStreams(t *testing.T) {
	tc := startCluster(t, 1, nil)
	ctx := context.Background()
	nc, err := nats.Connect(tc.options().Servers[0])
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	// The user's data: a bucket, a stream with a consumer.
	users, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "users"})
	if err != nil {
		t.Fatal(err)
	}
	users.Put(ctx, "alice", []byte("1"))
	orders, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "ORDERS", Subjects: []string{"orders.>"}})
	if err != nil {
		t.Fatal(err)
	}
	js.Publish(ctx, "orders.1", nil)
	orders.CreateConsumer(ctx, jetstream.ConsumerConfig{Durable: "billing"})
	before := streamNames(t, js)

	o := tc.options()
	o.Streams = []Stream{kvStream("chaos_t1", 1)}
	rt := newRuntime(t, o)
	c := startOne(t, rt, 1)
	// The workload's bucket, with an ordered consumer as the observer has.
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "chaos_t1"})
	if err != nil {
		t.Fatal(err)
	}
	kv.Put(ctx, "k0", []byte("v"))
	if _, err := js.OrderedConsumer(ctx, "KV_chaos_t1", jetstream.OrderedConsumerConfig{}); err != nil {
		t.Fatal(err)
	}
	// A cell whose Close never ran: the next cell deletes what it left.
	c2 := startOne(t, rt, 1)
	if _, err := js.Stream(ctx, "KV_chaos_t1"); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Errorf("the next cell's Start left the run's stream behind: %v", err)
	}
	js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "chaos_t1"})
	if err := c2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	if after := streamNames(t, js); !slices.Equal(after, before) {
		t.Errorf("streams after the run %v, before %v", after, before)
	}
	if ci, err := orders.Consumer(ctx, "billing"); err != nil || ci.CachedInfo().Name != "billing" {
		t.Errorf("the user's consumer: %v", err)
	}
	if e, err := users.Get(ctx, "alice"); err != nil || string(e.Value()) != "1" {
		t.Errorf("the user's key: %v", err)
	}

	// A stream of the run's name that the run did not create is refused.
	js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "chaos_t2"})
	o.Streams = []Stream{kvStream("chaos_t2", 1)}
	_, err = newRuntime(t, o).Start(ctx, cluster.Config{Nodes: 1, Dir: t.TempDir()})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "stream KV_chaos_t2 already exists and is not this run's") {
		t.Errorf("start with the stream there: %v", err)
	}
	if _, err := js.Stream(ctx, "KV_chaos_t2"); err != nil {
		t.Errorf("the refused run touched the stream: %v", err)
	}
}

func streamNames(t *testing.T, js jetstream.JetStream) []string {
	t.Helper()
	var out []string
	l := js.StreamNames(context.Background())
	for n := range l.Name() {
		out = append(out, n)
	}
	if l.Err() != nil {
		t.Fatal(l.Err())
	}
	slices.Sort(out)
	return out
}
