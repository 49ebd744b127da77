package observe

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// fakeCluster is a cluster the observer reads: its nodes, config, memory
// and state; everything else is left to the embedded nil interface.
type fakeCluster struct {
	cluster.Cluster
	nodes  []cluster.Node
	cfg    cluster.Config
	memory func(i int) (int64, error)
	state  func(i int) (cluster.NodeState, error)
}

func (c fakeCluster) Nodes() []cluster.Node  { return c.nodes }
func (c fakeCluster) Config() cluster.Config { return c.cfg }
func (c fakeCluster) Memory(_ context.Context, i int) (int64, error) {
	return c.memory(i)
}
func (c fakeCluster) State(_ context.Context, i int) (cluster.NodeState, error) {
	return c.state(i)
}

// monitorServer answers /varz, /healthz and /jsz as node name would: a
// server leading stream S with the other node 3 entries behind.
func monitorServer(t *testing.T, name string, healthy bool) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/varz":
			_, _ = io.WriteString(w, `{"server_name":"`+name+`","mem":52428800}`)
		case "/healthz":
			if !healthy {
				http.Error(w, `{"status":"unavailable","error":"JetStream stream 'S' is not current"}`, http.StatusServiceUnavailable)
				return
			}
			_, _ = io.WriteString(w, `{"status":"ok"}`)
		case "/jsz":
			_, _ = io.WriteString(w, `{"account_details":[{"id":"$G","stream_detail":[{"name":"S","state":{"messages":10,"bytes":1000,"first_seq":1,"last_seq":10},`+
				`"cluster":{"leader":"n1","replicas":[{"name":"n2","current":false,"lag":3}]}}]}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestObserverWritesEveryKind: a started observer writes its start line,
// each node's limit from the cluster's config, every kind of reading of
// every node (a failed state reading with its error), a limit changed by
// the workload, and its stop line; Load reads it all back, and Stop a
// second time does nothing.
func TestObserverWritesEveryKind(t *testing.T) {
	var usage atomic.Int64
	c := fakeCluster{
		nodes: []cluster.Node{{Name: "n1", MonitorURL: monitorServer(t, "n1", true)}, {Name: "n2", MonitorURL: monitorServer(t, "n2", false)}},
		cfg:   cluster.Config{MemoryLimit: 128 << 20},
		memory: func(i int) (int64, error) {
			return 100<<20 + usage.Add(1), nil
		},
		state: func(i int) (cluster.NodeState, error) {
			if i == 1 {
				return cluster.NodeState{}, errors.New("inspect n2: context deadline exceeded")
			}
			return cluster.NodeState{Running: true, OOMKills: 0}, nil
		},
	}
	dir := t.TempDir()
	t0 := time.Now()
	ob, err := Start(context.Background(), Options{Cluster: c, Path: filepath.Join(dir, File), Every: 20 * time.Millisecond,
		Now: func() int64 { return int64(time.Since(t0)) }})
	if err != nil {
		t.Fatal(err)
	}
	ob.Follow("S")
	ob.Limit(1, 64<<20)
	time.Sleep(300 * time.Millisecond)
	if s, ok := ob.Latest(KindState, 0); !ok || s.State == nil || !s.State.Running {
		t.Errorf("latest state of n1: %+v, %v", s, ok)
	}
	if err := ob.Stop(); err != nil {
		t.Fatal(err)
	}
	ob.Limit(0, 0) // after the stop line: dropped
	if err := ob.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	rec, err := Load(dir)
	if err != nil || rec == nil {
		t.Fatalf("Load: %v, %v", rec, err)
	}
	if !rec.Complete || strings.Join(rec.Nodes, ",") != "n1,n2" || rec.Every != 20*time.Millisecond {
		t.Errorf("record: complete %v, nodes %v, every %s", rec.Complete, rec.Nodes, rec.Every)
	}
	count := map[string]int{}
	for _, s := range rec.Samples {
		count[s.Node+" "+string(s.Kind)]++
		switch {
		case s.Kind == KindState && s.Node == "n2" && (s.Err == "" || s.State != nil):
			t.Errorf("n2's failed state reading: %+v", s)
		case s.Kind == KindHealth && s.Node == "n2" && (s.Status != 503 || !strings.Contains(s.Err, "not current")):
			t.Errorf("n2's unhealthy answer: %+v", s)
		case s.Kind == KindStream && (s.Stream == nil || !s.Stream.Has || s.Stream.LastSeq != 10 || !s.Leads() != (s.Node == "n2")):
			t.Errorf("stream reading: %+v %+v", s, s.Stream)
		case (s.Kind == KindState || s.Kind == KindHealth || s.Kind == KindStream) && (s.Asked == 0 || s.Asked > s.T):
			t.Errorf("reading asked at %d, answered at %d", s.Asked, s.T)
		}
	}
	for _, k := range []string{"n1 usage", "n2 usage", "n1 rss", "n2 rss"} {
		if count[k] < 5 {
			t.Errorf("%d %s readings in 300 ms every 20 ms", count[k], k)
		}
	}
	for _, k := range []string{"n1 state", "n2 state", "n1 health", "n2 health", "n1 stream", "n2 stream"} {
		if count[k] < 1 || count[k] > 3 {
			t.Errorf("%d %s readings in 300 ms: the slow kinds run every 250 ms at most", count[k], k)
		}
	}
	mem := rec.Memory()
	if len(mem) != 2 || len(mem[0].Limit.V) != 1 || mem[0].Limit.V[0] != 128<<20 || len(mem[1].Limit.V) != 2 || mem[1].Limit.V[1] != 64<<20 {
		t.Errorf("limits: %+v", mem)
	}
	if p, _ := mem[0].RSS.Peak(); p != 50<<20 {
		t.Errorf("n1's RSS peak %d", p)
	}
}

// TestSampleHealth: a health reading keeps the status /healthz answered (0
// when nothing answered) and, unless it is 200, the body or the error; an
// unhealthy answer with an empty body is still unhealthy.
func TestSampleHealth(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	cases := []struct {
		name     string
		handler  http.HandlerFunc // nil: a node that is down
		want     HealthSample     // Node and TMs aside
		errorHas string
	}{
		{"healthy", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"status":"ok"}`)) },
			HealthSample{OK: true, Status: 200}, ""},
		{"unhealthy", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"status":"unavailable","error":"JetStream stream 'S' is not current"}`, http.StatusServiceUnavailable)
		}, HealthSample{Status: 503}, "is not current"},
		{"unhealthy, no body", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) },
			HealthSample{Status: 503}, ""},
		{"down", nil, HealthSample{}, "connection refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := down.URL
			if c.handler != nil {
				srv := httptest.NewServer(c.handler)
				defer srv.Close()
				url = srv.URL
			}
			var out nopCloser
			ob := newObserver(context.Background(), Options{Cluster: fakeCluster{nodes: []cluster.Node{{Name: "n1", MonitorURL: url}}},
				Now: func() int64 { return 1e6 }}, &out)
			ob.sampleHealth(context.Background(), 0)
			s, ok := ob.Latest(KindHealth, 0)
			if !ok {
				t.Fatal("no health reading")
			}
			h := (&Record{Samples: []Sample{s}}).Health()[0]
			if h.OK != c.want.OK || h.Status != c.want.Status || !strings.Contains(h.Error, c.errorHas) || (c.errorHas == "" && h.Error != "") {
				t.Errorf("reading %+v, want %+v saying %q", h, c.want, c.errorHas)
			}
		})
	}
}

// nopCloser is a file the observer writes to in memory.
type nopCloser struct{ bytes.Buffer }

func (*nopCloser) Close() error { return nil }
