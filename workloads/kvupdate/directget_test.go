package kvupdate

import (
	"context"
	"strings"
	"testing"
	"time"
)

// awaitDirectGet sees the server's own Direct Get subscription through
// /subsz: present with Direct Get on, absent (the wait runs out) with it
// off, and a node without monitoring is said, not waited for.
func TestAwaitDirectGet(t *testing.T) {
	tests := []struct {
		name      string
		direct    bool
		noMonitor bool
		want      string
	}{
		{"Direct Get on", true, false, "all 1 replicas answer Direct Get after"},
		{"Direct Get off", false, false, "solo did not answer Direct Get within 300ms"},
		{"no monitoring", true, true, "no replica has a monitoring endpoint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes := embedded(t)
			if tc.noMonitor {
				nodes[0].MonitorURL = ""
			}
			opts := Options{Replicas: 1, Keys: 1, Clients: 1, DirectGet: tc.direct}.WithDefaults()
			w, err := Setup(context.Background(), nodes, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if got := w.awaitDirectGet(context.Background(), 300*time.Millisecond); !strings.Contains(got, tc.want) {
				t.Errorf("%q, want it to say %q", got, tc.want)
			}
		})
	}
}
