package observe

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

func TestAgreement(t *testing.T) {
	rep := func(node string, first, last, msgs uint64) ReplicaState {
		return ReplicaState{Node: node, Has: true, FirstSeq: first, LastSeq: last, Msgs: msgs}
	}
	for _, tc := range []struct {
		name string
		reps []ReplicaState
		ok   bool
	}{
		{"same", []ReplicaState{rep("n1", 1, 100, 100), rep("n2", 1, 100, 100), rep("n3", 1, 100, 100)}, true},
		{"last differs", []ReplicaState{rep("n1", 1, 100, 100), rep("n2", 1, 99, 99), rep("n3", 1, 100, 100)}, false},
		{"first differs", []ReplicaState{rep("n1", 1, 100, 100), rep("n2", 2, 100, 99), rep("n3", 1, 100, 100)}, false},
		{"count differs (a hole)", []ReplicaState{rep("n1", 1, 100, 100), rep("n2", 1, 100, 98), rep("n3", 1, 100, 100)}, false},
		{"no copy", []ReplicaState{rep("n1", 1, 100, 100), {Node: "n2"}}, false},
		{"unreadable", []ReplicaState{rep("n1", 1, 100, 100), {Node: "n2", Err: "refused"}}, false},
		{"none", nil, false},
	} {
		if ok, detail := Agreement(tc.reps); ok != tc.ok || detail == "" {
			t.Errorf("%s: Agreement = %v, %q; want %v", tc.name, ok, detail, tc.ok)
		}
	}
}

// Replicas reads each node's own copy from its /jsz: a server with the
// stream agrees with itself, a node whose monitor refuses is named with
// its error, and a stream nobody holds is "no copy".
func TestReplicasReadsEachNode(t *testing.T) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, HTTPHost: "127.0.0.1", HTTPPort: -1,
		JetStream: true, StoreDir: t.TempDir(), ServerName: "solo", NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(5 * time.Second) {
		t.Fatal("embedded server not ready")
	}
	t.Cleanup(s.Shutdown)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t"}}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := js.Publish(ctx, "t", nil); err != nil {
			t.Fatal(err)
		}
	}
	solo := cluster.Node{Name: "solo", ClientURL: s.ClientURL(), MonitorURL: "http://" + s.MonitorAddr().String()}
	reps := Replicas(ctx, []cluster.Node{solo, solo}, "T", time.Second)
	if ok, detail := Agreement(reps); !ok || reps[0].Msgs != 3 || reps[0].LastSeq != 3 || reps[0].Bytes == 0 {
		t.Fatalf("one server read twice: %+v, %v %q", reps, ok, detail)
	}
	dead := cluster.Node{Name: "dead", MonitorURL: "http://127.0.0.1:1"}
	reps = Replicas(ctx, []cluster.Node{solo, dead}, "T", 300*time.Millisecond)
	if ok, detail := Agreement(reps); ok || reps[1].Err == "" || !strings.Contains(detail, "dead could not be read") {
		t.Errorf("a node that does not answer: %+v, %q", reps, detail)
	}
	reps = Replicas(ctx, []cluster.Node{solo}, "NONE", 300*time.Millisecond)
	if ok, detail := Agreement(reps); ok || reps[0].Has || !strings.Contains(detail, "no copy") {
		t.Errorf("a stream nobody holds: %+v, %q", reps, detail)
	}
}
