package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMonitorGet: every way a request can end, and what each says: an
// answer (whatever its status), a refusal (a node down) and a timeout (a
// node paused) are told apart, as faults need.
func TestMonitorGet(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	type verdict struct{ answered, refused, timedOut, notServed bool }
	cases := []struct {
		name    string
		handler http.HandlerFunc // nil: the node's URL is closedURL's
		url     string           // used when handler is nil
		want    verdict
		errHas  string // "" for no error
	}{
		{"200", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"server_name":"n1"}`) },
			"", verdict{answered: true}, ""},
		{"503", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "{\"status\":\"unavailable\",\n \"error\":\"no meta leader\"}", http.StatusServiceUnavailable)
		}, "", verdict{answered: true}, `/varz: 503 Service Unavailable: {"status":"unavailable", "error":"no meta leader"}`},
		{"404", http.NotFound, "", verdict{answered: true, notServed: true}, "/varz: 404 Not Found"},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>") },
			"", verdict{}, "/varz: invalid character"},
		{"paused", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
			"", verdict{timedOut: true}, "deadline exceeded"},
		{"closed before answering", func(w http.ResponseWriter, r *http.Request) {
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Close()
			}
		}, "", verdict{refused: true}, "EOF"},
		{"down", nil, closed.URL, verdict{refused: true}, "connection refused"},
		{"no monitor URL", nil, "", verdict{refused: true}, "n1 has no monitor URL: connection refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := c.url
			if c.handler != nil {
				srv := httptest.NewServer(c.handler)
				defer srv.Close()
				url = srv.URL
			}
			var v Varz
			err := Monitor{Timeout: 200 * time.Millisecond}.Get(context.Background(), Node{Name: "n1", MonitorURL: url}, "/varz", &v)
			got := verdict{Answered(err), Refused(err), TimedOut(err), NotServed(err)}
			if got != c.want {
				t.Errorf("err %v: %+v, want %+v", err, got, c.want)
			}
			switch {
			case c.errHas == "" && (err != nil || v.ServerName != "n1"):
				t.Errorf("err %v, server %q; want n1 decoded", err, v.ServerName)
			case c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)):
				t.Errorf("err %v, want one saying %q", err, c.errHas)
			}
		})
	}
}

// TestMonitorGetKeepsOrDrops: a nil v drops the answer, a
// *json.RawMessage keeps it as served.
func TestMonitorGetKeepsOrDrops(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"a": 1}`) }))
	defer srv.Close()
	n := Node{Name: "n1", MonitorURL: srv.URL}
	if err := (Monitor{}).Get(context.Background(), n, "/varz", nil); err != nil {
		t.Fatal(err)
	}
	var raw json.RawMessage
	if err := (Monitor{}).Get(context.Background(), n, "/varz", &raw); err != nil || string(raw) != `{"a": 1}` {
		t.Fatalf("kept %q, %v", raw, err)
	}
}

// TestUnreachable: no route and no such host are unreachable; a refusal
// or a timeout is not.
func TestUnreachable(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{&net.OpError{Op: "dial", Err: syscall.EHOSTUNREACH}, true},
		{fmt.Errorf("get: %w", syscall.ENETUNREACH), true},
		{&net.DNSError{Name: "nowhere", IsNotFound: true}, true},
		{&net.DNSError{Name: "slow", IsTimeout: true}, false},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, false},
		{context.DeadlineExceeded, false},
		{errors.New("tls: bad certificate"), false},
	}
	for _, c := range cases {
		if got := Unreachable(c.err); got != c.want {
			t.Errorf("Unreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
