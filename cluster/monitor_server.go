package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"time"
)

// The server-wide endpoints: /varz, /routez, /healthz and /subsz, each
// decoded here once, in the parts the toolkit reads.

// Varz is the part of /varz the toolkit reads.
type Varz struct {
	ServerName   string    `json:"server_name"`
	Version      string    `json:"version"`
	GitCommit    string    `json:"git_commit"`
	ConfigDigest string    `json:"config_digest"`
	Mem          int64     `json:"mem"`   // resident set size
	Start        time.Time `json:"start"` // when the process started
	Cluster      struct {
		Name string `json:"name"`
	} `json:"cluster"`
}

// Varz reads n's /varz.
func (m Monitor) Varz(ctx context.Context, n Node) (Varz, error) {
	var v Varz
	err := m.Get(ctx, n, "/varz", &v)
	return v, err
}

// Routez is the part of /routez the toolkit reads.
type Routez struct {
	ServerName string  `json:"server_name"`
	NumRoutes  int     `json:"num_routes"`
	Routes     []Route `json:"routes"`
}

// Route is one route of a node's /routez.
type Route struct {
	RemoteName string `json:"remote_name"`
	IP         string `json:"ip"`
	RTT        string `json:"rtt"` // a Go duration; refreshed on every route ping
}

// Peers lists, sorted, the distinct servers this node has a route to
// (route pooling opens several routes per peer).
func (r Routez) Peers() []string {
	var out []string
	for _, rt := range r.Routes {
		if rt.RemoteName != "" && !slices.Contains(out, rt.RemoteName) {
			out = append(out, rt.RemoteName)
		}
	}
	slices.Sort(out)
	return out
}

// Routez reads n's /routez.
func (m Monitor) Routez(ctx context.Context, n Node) (Routez, error) {
	var r Routez
	err := m.Get(ctx, n, "/routez", &r)
	return r, err
}

// HealthzOptions pick what /healthz checks; the zero value is the full
// check: JetStream current with the meta leader, every assigned stream and
// consumer healthy.
type HealthzOptions struct {
	// JSEnabledOnly checks only that JetStream is enabled: it passes before
	// a meta leader exists (nats-server monitor.go, healthz).
	JSEnabledOnly bool
	// JSMetaOnly checks JetStream against the meta leader and leaves out
	// streams and consumers.
	JSMetaOnly bool
	// Details lists every failed check in Health.Errors rather than the
	// first in Health.Error.
	Details bool
}

func (o HealthzOptions) path() string {
	q := url.Values{}
	if o.JSEnabledOnly {
		q.Set("js-enabled-only", "true")
	}
	if o.JSMetaOnly {
		q.Set("js-meta-only", "true")
	}
	if o.Details {
		q.Set("details", "true")
	}
	if len(q) == 0 {
		return "/healthz"
	}
	return "/healthz?" + q.Encode()
}

// Health is a /healthz answer.
type Health struct {
	Status string        `json:"status"`          // "ok"; "unavailable", or "error" with Details
	Error  string        `json:"error,omitempty"` // the failed check, without Details
	Errors []HealthError `json:"errors,omitempty"`
}

// HealthError is one failed check of a /healthz with details.
type HealthError struct {
	Type     string `json:"type"` // JETSTREAM, ACCOUNT, STREAM, CONSUMER...
	Account  string `json:"account,omitempty"`
	Stream   string `json:"stream,omitempty"`
	Consumer string `json:"consumer,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Healthz reads n's /healthz. A node that is not healthy answers 503: the
// error is then an *HTTPError, and the Health is decoded from its body
// where the body is one.
func (m Monitor) Healthz(ctx context.Context, n Node, o HealthzOptions) (Health, error) {
	var h Health
	err := m.Get(ctx, n, o.path(), &h)
	var he *HTTPError
	if errors.As(err, &he) {
		_ = json.Unmarshal([]byte(he.Body), &h) // the error already says it all
	}
	return h, err
}

// Subsz is the part of /subsz?subs=1 the toolkit reads.
type Subsz struct {
	Total int         `json:"total"` // the subscriptions that matched the test subject
	Subs  []SubDetail `json:"subscriptions_list"`
}

// SubDetail is one subscription of /subsz?subs=1.
type SubDetail struct {
	Account string `json:"account"`
	Subject string `json:"subject"`
	Queue   string `json:"qgroup"`
}

// Subsz lists n's subscriptions that match the subject test, whether in
// full or by wildcard.
func (m Monitor) Subsz(ctx context.Context, n Node, test string) (Subsz, error) {
	var s Subsz
	q := url.Values{"subs": {"1"}, "test": {test}}
	err := m.Get(ctx, n, "/subsz?"+q.Encode(), &s)
	return s, err
}

// ServesDirectGet asks n's /subsz whether it holds a local subscription on
// stream's own Direct Get subject: a replica answers Direct Get only once
// it has one. The JetStream API's "$JS.API.>" also matches the subject, so
// the list is read, not the count.
func (m Monitor) ServesDirectGet(ctx context.Context, n Node, stream string) (bool, error) {
	subject := "$JS.API.DIRECT.GET." + stream
	s, err := m.Subsz(ctx, n, subject)
	if err != nil {
		return false, err
	}
	for _, e := range s.Subs {
		if e.Subject == subject || e.Subject == subject+".>" {
			return true, nil
		}
	}
	return false, nil
}

// GetVarz reads n's /varz within DefaultMonitorTimeout.
func GetVarz(ctx context.Context, n Node) (Varz, error) { return Monitor{}.Varz(ctx, n) }

// GetRoutez reads n's /routez within DefaultMonitorTimeout.
func GetRoutez(ctx context.Context, n Node) (Routez, error) { return Monitor{}.Routez(ctx, n) }

// Healthy asks n's full /healthz within DefaultMonitorTimeout.
func Healthy(ctx context.Context, n Node) error {
	_, err := Monitor{}.Healthz(ctx, n, HealthzOptions{})
	return err
}

// ServesDirectGet is Monitor.ServesDirectGet within DefaultMonitorTimeout.
func ServesDirectGet(ctx context.Context, n Node, stream string) (bool, error) {
	return Monitor{}.ServesDirectGet(ctx, n, stream)
}
