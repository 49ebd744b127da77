package catchup

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// monitorOnly is a cluster of which the observer reads only the nodes'
// monitoring URLs.
type monitorOnly struct {
	cluster.Cluster
	nodes []cluster.Node
}

func (c monitorOnly) Nodes() []cluster.Node { return c.nodes }

// TestSampleHealth: a health sample keeps the status /healthz answered (0
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
			o := newObserver(monitorOnly{nodes: []cluster.Node{{Name: "n1", MonitorURL: url}}}, time.Now(), time.Second, "S")
			o.sampleHealth(context.Background(), 0)
			if len(o.health) != 1 {
				t.Fatalf("%d samples", len(o.health))
			}
			h := o.health[0]
			if h.OK != c.want.OK || h.Status != c.want.Status || !strings.Contains(h.Error, c.errorHas) || (c.errorHas == "" && h.Error != "") {
				t.Errorf("sample %+v, want %+v saying %q", h, c.want, c.errorHas)
			}
		})
	}
}
