package cluster

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fixtureServer answers each request URI it knows with a file of
// testdata/monitor (the answers of a real server) and its status, and any
// other with 400: a request with another query fails the test.
func fixtureServer(t *testing.T, answers map[string]string, status map[string]int) Node {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		file, ok := answers[r.URL.RequestURI()]
		if !ok {
			http.Error(w, "unexpected request "+r.URL.RequestURI(), http.StatusBadRequest)
			return
		}
		b, err := os.ReadFile(filepath.Join("testdata", "monitor", file))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if s := status[r.URL.RequestURI()]; s != 0 {
			w.WriteHeader(s)
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return Node{Name: "s3", MonitorURL: srv.URL}
}

const streamsURI = "/jsz?accounts=true&streams=true&config=true&raft=true"

// TestServerEndpoints decodes /varz, /routez and /subsz as nats-server
// 2.15.3 serves them.
func TestServerEndpoints(t *testing.T) {
	n := fixtureServer(t, map[string]string{
		"/varz":   "varz.json",
		"/routez": "routez.json",
		"/subsz?subs=1&test=%24JS.API.DIRECT.GET.S": "subsz.json",
		"/subsz?subs=1&test=%24JS.API.DIRECT.GET.T": "subsz.json", // holds "$JS.API.>" alone for T
	}, nil)
	ctx := context.Background()
	var m Monitor
	v, err := m.Varz(ctx, n)
	if err != nil || v.ServerName != "s3" || v.Version != "2.15.3" || v.Cluster.Name != "test" || v.Start.IsZero() || v.Mem == 0 {
		t.Errorf("varz %+v, %v", v, err)
	}
	r, err := m.Routez(ctx, n)
	if err != nil || r.NumRoutes != 8 || len(r.Routes) != 8 || r.Routes[0].RTT != "96µs" {
		t.Errorf("routez %+v, %v", r, err)
	}
	if p := r.Peers(); !slices.Equal(p, []string{"s1", "s2"}) {
		t.Errorf("peers %v, want [s1 s2]: one each, sorted, of 8 pooled routes", p)
	}
	for stream, want := range map[string]bool{"S": true, "T": false} {
		if got, err := m.ServesDirectGet(ctx, n, stream); err != nil || got != want {
			t.Errorf("ServesDirectGet(%s) = %v, %v; want %v", stream, got, err, want)
		}
	}
}

// TestRoutezPeers: one name a peer however many routes pooling opens to
// it, sorted, and none for a route whose remote is not named yet.
func TestRoutezPeers(t *testing.T) {
	r := Routez{Routes: []Route{{RemoteName: "n3"}, {RemoteName: "n1"}, {}, {RemoteName: "n3"}, {RemoteName: "n1"}}}
	if p := r.Peers(); !slices.Equal(p, []string{"n1", "n3"}) {
		t.Errorf("peers %v, want [n1 n3]", p)
	}
	if p := (Routez{}).Peers(); len(p) != 0 {
		t.Errorf("no routes: peers %v", p)
	}
}

// TestJszAndRaftz decodes /jsz, its streams and /raftz as nats-server
// 2.15.3 serves them, and asks /raftz within the stream's account.
func TestJszAndRaftz(t *testing.T) {
	const group = "S-R3F-dbdL4I4T"
	n := fixtureServer(t, map[string]string{
		"/jsz":                              "jsz.json",
		streamsURI:                          "jsz_streams.json",
		"/raftz?acc=%24G&group=" + group:    "raftz.json",
		"/raftz?acc=%24G&group=S-R3F-other": "raftz.json",
	}, nil)
	ctx := context.Background()
	var m Monitor
	j, err := m.Jsz(ctx, n)
	if err != nil || j.Meta == nil || j.Meta.Leader != "s3" || j.Meta.Size != 3 || len(j.Accounts) != 0 {
		t.Fatalf("jsz %+v, %v", j, err)
	}
	if names := []string{j.Meta.Replicas[0].Name, j.Meta.Replicas[1].Name}; !slices.Equal(names, []string{"s1", "s2"}) || !j.Meta.Replicas[0].Current {
		t.Errorf("meta replicas %+v", j.Meta.Replicas)
	}
	s, ok, err := m.LocalStream(ctx, n, "S")
	switch {
	case err != nil || !ok:
		t.Fatalf("stream S: ok %v, %v", ok, err)
	case s.Leader() != "s3" || len(s.Cluster.Replicas) != 2 || !s.Cluster.Replicas[1].Current || s.Cluster.Replicas[1].Name != "s2":
		t.Errorf("cluster %+v", s.Cluster)
	case s.Config == nil || s.Config.Replicas != 3:
		t.Errorf("config %+v", s.Config)
	case s.State != StreamState{Msgs: 5, Bytes: 170, FirstSeq: 1, LastSeq: 5}:
		t.Errorf("state %+v", s.State)
	case s.RaftGroup != group || s.Account != "$G":
		t.Errorf("group %q of account %q", s.RaftGroup, s.Account)
	}
	if _, ok, err := m.LocalStream(ctx, n, "T"); ok || err != nil {
		t.Errorf("stream T: ok %v, %v; want none", ok, err)
	}
	g, ok, err := m.Raftz(ctx, n, s.Account, s.RaftGroup)
	if err != nil || !ok || g.State != "LEADER" || g.Term != 1 || g.Applied != 6 || g.WAL.FirstSeq != 2 || g.WAL.LastSeq != 6 || g.CatchingUp {
		t.Errorf("raftz %+v, ok %v, %v", g, ok, err)
	}
	if _, ok, err := m.Raftz(ctx, n, "$G", "S-R3F-other"); ok || err != nil {
		t.Errorf("raftz of a group the node is not in: ok %v, %v", ok, err)
	}
}

// TestStreamDetailWithoutCluster: a server outside a cluster names no
// leader.
func TestStreamDetailWithoutCluster(t *testing.T) {
	if l := (StreamDetail{Name: "S"}).Leader(); l != "" {
		t.Errorf("leader %q", l)
	}
}

// TestHealthz: the options' queries, and an unhealthy answer decoded as
// well as returned as an *HTTPError.
func TestHealthz(t *testing.T) {
	n := fixtureServer(t, map[string]string{
		"/healthz":                      "healthz.json",
		"/healthz?js-enabled-only=true": "healthz.json",
		"/healthz?js-meta-only=true":    "healthz_unavailable.json",
		"/healthz?details=true":         "healthz_details.json",
	}, map[string]int{"/healthz?js-meta-only=true": 503, "/healthz?details=true": 503})
	ctx := context.Background()
	var m Monitor
	for _, o := range []HealthzOptions{{}, {JSEnabledOnly: true}} {
		if h, err := m.Healthz(ctx, n, o); err != nil || h.Status != "ok" {
			t.Errorf("%+v: %+v, %v", o, h, err)
		}
	}
	var he *HTTPError
	h, err := m.Healthz(ctx, n, HealthzOptions{JSMetaOnly: true})
	if !errors.As(err, &he) || he.Status != 503 || h.Status != "unavailable" || h.Error != "JetStream is still recovering meta layer" {
		t.Errorf("meta only: %+v, %v", h, err)
	}
	h, err = m.Healthz(ctx, n, HealthzOptions{Details: true})
	if !errors.As(err, &he) || h.Status != "error" || len(h.Errors) != 1 || h.Errors[0].Type != "JETSTREAM" ||
		h.Errors[0].Error != "JetStream is still recovering meta layer" {
		t.Errorf("details: %+v, %v", h, err)
	}
	if err := Healthy(ctx, n); err != nil {
		t.Errorf("Healthy: %v", err)
	}
}
