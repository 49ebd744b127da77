package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/client/clienttest"
)

// On an in-process server: a plain R1 stream is created and returned, at
// once or after the readiness wait, and created again with the same config;
// a stream the server refuses, or a cancelled context, is an error in one
// line naming the stream.
func TestCreateStream(t *testing.T) {
	nodes, _ := clienttest.Server(t, 1)
	nc, err := Connect(nodes, Order(0, 1), "t")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name  string
		ctx   context.Context
		cfg   jetstream.StreamConfig
		ready time.Duration
		want  string // the error's prefix; "" for none
	}{
		{"R1 at once", context.Background(), jetstream.StreamConfig{Name: "A", Subjects: []string{"a.>"}}, 0, ""},
		{"R1 ready", context.Background(), jetstream.StreamConfig{Name: "B", Subjects: []string{"b.>"}, Replicas: 1, AllowDirect: true}, 5 * time.Second, ""},
		{"the same again", context.Background(), jetstream.StreamConfig{Name: "B", Subjects: []string{"b.>"}, Replicas: 1, AllowDirect: true}, 5 * time.Second, ""},
		{"features kept", context.Background(), jetstream.StreamConfig{Name: "C", Subjects: []string{"c.>"}, AllowAtomicPublish: true}, time.Second, ""},
		// One server has no peers for R3: refused at once, not retried for 30 s.
		{"R3 on one server", context.Background(), jetstream.StreamConfig{Name: "D", Subjects: []string{"d.>"}, Replicas: 3}, time.Second, "create stream D: "},
		{"cancelled", cancelled, jetstream.StreamConfig{Name: "E", Subjects: []string{"e.>"}}, time.Second, "create stream E: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			s, err := CreateStream(c.ctx, js, c.cfg, c.ready)
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %s", took)
			}
			if c.want != "" {
				if err == nil || s != nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("got %v, %v; want an error starting %q", s, err, c.want)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			info := s.CachedInfo()
			if info.Config.Name != c.cfg.Name || info.Config.AllowDirect != c.cfg.AllowDirect ||
				info.Config.AllowAtomicPublish != c.cfg.AllowAtomicPublish {
				t.Errorf("returned %+v", info.Config)
			}
			// The create answer of a server outside a cluster names no
			// cluster; the stream info the wait reads does.
			if c.ready > 0 && (info.Cluster == nil || info.Cluster.Leader == "") {
				t.Errorf("returned cluster %+v after the wait", info.Cluster)
			}
		})
	}
}

// StreamLeader names the leader from the stream's info, and a stream that
// is not there is an error naming stream info that keeps its cause.
func TestStreamLeader(t *testing.T) {
	nodes, _ := clienttest.Server(t, 1)
	nc, err := Connect(nodes, Order(0, 1), "t")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	if _, err := CreateStream(ctx, js, jetstream.StreamConfig{Name: "L", Subjects: []string{"l.>"}}, 0); err != nil {
		t.Fatal(err)
	}
	if l, err := StreamLeader(ctx, js, "L", time.Second); err != nil || l != "auth" {
		t.Errorf("StreamLeader = %q, %v; want the server's name", l, err)
	}
	if info, err := StreamInfo(ctx, js, "L", time.Second); err != nil || info.Config.Name != "L" {
		t.Errorf("StreamInfo = %+v, %v", info, err)
	}
	_, err = StreamLeader(ctx, js, "NONE", time.Second)
	if !errors.Is(err, jetstream.ErrStreamNotFound) || !strings.HasPrefix(err.Error(), "stream info: ") {
		t.Errorf("StreamLeader of a missing stream = %v, want stream info: ... not found", err)
	}
}

// A config the server answers without a feature asked for, or with
// allow_direct other than asked, is refused in one line naming the field;
// features not asked for, or kept, pass.
func TestKeptFeatures(t *testing.T) {
	cases := []struct {
		name     string
		cfg, got jetstream.StreamConfig
		want     string // the error; "" for none
	}{
		{"plain", jetstream.StreamConfig{Name: "S"}, jetstream.StreamConfig{}, ""},
		{"all kept", jetstream.StreamConfig{Name: "S", AllowDirect: true, AllowAtomicPublish: true, AllowMsgCounter: true},
			jetstream.StreamConfig{AllowDirect: true, AllowAtomicPublish: true, AllowMsgCounter: true}, ""},
		{"extra, not asked", jetstream.StreamConfig{Name: "S"}, jetstream.StreamConfig{AllowAtomicPublish: true, AllowMsgCounter: true}, ""},
		{"direct dropped", jetstream.StreamConfig{Name: "S", AllowDirect: true}, jetstream.StreamConfig{},
			"stream S has allow_direct false, asked true"},
		{"direct added", jetstream.StreamConfig{Name: "S"}, jetstream.StreamConfig{AllowDirect: true},
			"stream S has allow_direct true, asked false"},
		{"atomic dropped", jetstream.StreamConfig{Name: "S", AllowAtomicPublish: true}, jetstream.StreamConfig{},
			"stream S has allow_atomic false, asked true: the server predates atomic batch publish (ADR-50, nats-server 2.12.0)"},
		{"counter dropped", jetstream.StreamConfig{Name: "S", AllowMsgCounter: true, AllowDirect: true}, jetstream.StreamConfig{AllowDirect: true},
			"stream S has allow_msg_counter false, asked true: the server predates distributed counters (ADR-49, nats-server 2.12.0)"},
	}
	for _, c := range cases {
		err := keptFeatures(c.cfg, c.got)
		if got := errString(err); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A stream is settled with a leader and every follower current.
func TestSettled(t *testing.T) {
	peer := func(current bool) *jetstream.PeerInfo { return &jetstream.PeerInfo{Name: "p", Current: current} }
	cases := []struct {
		name      string
		ci        *jetstream.ClusterInfo
		followers int
		want      bool
	}{
		{"no info", nil, 0, false},
		{"R1", &jetstream.ClusterInfo{Leader: "n1"}, 0, true},
		{"no leader", &jetstream.ClusterInfo{Replicas: []*jetstream.PeerInfo{peer(true), peer(true)}}, 2, false},
		{"R3 current", &jetstream.ClusterInfo{Leader: "n1", Replicas: []*jetstream.PeerInfo{peer(true), peer(true)}}, 2, true},
		{"R3 one behind", &jetstream.ClusterInfo{Leader: "n1", Replicas: []*jetstream.PeerInfo{peer(true), peer(false)}}, 2, false},
		{"R3 one missing", &jetstream.ClusterInfo{Leader: "n1", Replicas: []*jetstream.PeerInfo{peer(true)}}, 2, false},
	}
	for _, c := range cases {
		if got := settled(c.ci, c.followers); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
