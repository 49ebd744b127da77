package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/nats-io/nats.go"
)

// The monitoring endpoints are the ground truth that faults verify against:
// a partition is real when /routez says the routes are gone, a node is up
// when /healthz answers.

var monitorClient = &http.Client{Timeout: 2 * time.Second}

func getJSON(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := monitorClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return &HTTPError{URL: url, Status: resp.StatusCode, Body: string(body)}
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %s: %w", url, resp.Status, err)
	}
	return nil
}

// HTTPError is a monitoring endpoint's answer other than 200 OK.
type HTTPError struct {
	URL    string
	Status int
	Body   string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s: %d %s: %s", e.URL, e.Status, http.StatusText(e.Status), e.Body)
}

// NotServed says whether err is a 404: the server has no such endpoint
// (/raftz on older releases).
func NotServed(err error) bool {
	var he *HTTPError
	return errors.As(err, &he) && he.Status == http.StatusNotFound
}

// Routez is the part of /routez that faults need.
type Routez struct {
	ServerName string `json:"server_name"`
	NumRoutes  int    `json:"num_routes"`
	Routes     []struct {
		RemoteName string `json:"remote_name"`
		IP         string `json:"ip"`
	} `json:"routes"`
}

// Peers lists the distinct servers this node has a route to (route pooling
// opens several routes per peer).
func (r Routez) Peers() []string {
	seen := map[string]bool{}
	var out []string
	for _, rt := range r.Routes {
		if rt.RemoteName != "" && !seen[rt.RemoteName] {
			seen[rt.RemoteName] = true
			out = append(out, rt.RemoteName)
		}
	}
	return out
}

// GetRoutez reads a node's /routez.
func GetRoutez(ctx context.Context, n Node) (Routez, error) {
	var r Routez
	err := getJSON(ctx, n.MonitorURL+"/routez", &r)
	return r, err
}

// Varz is the part of /varz we use.
type Varz struct {
	ServerName string    `json:"server_name"`
	Version    string    `json:"version"`
	Mem        int64     `json:"mem"`   // resident set size
	Start      time.Time `json:"start"` // when the process started
}

// GetVarz reads a node's /varz.
func GetVarz(ctx context.Context, n Node) (Varz, error) {
	var v Varz
	err := getJSON(ctx, n.MonitorURL+"/varz", &v)
	return v, err
}

// Jsz is the part of /jsz we use.
type Jsz struct {
	Meta *struct {
		Leader  string `json:"leader"`
		Size    int    `json:"cluster_size"`
		Replica []struct {
			Name    string `json:"name"`
			Current bool   `json:"current"`
			Offline bool   `json:"offline"`
		} `json:"replicas"`
	} `json:"meta_cluster"`
}

// GetJsz reads a node's /jsz.
func GetJsz(ctx context.Context, n Node) (Jsz, error) {
	var j Jsz
	err := getJSON(ctx, n.MonitorURL+"/jsz", &j)
	return j, err
}

// ServesDirectGet asks a node's /subsz whether it holds a local
// subscription on stream's own Direct Get subject: a replica answers
// Direct Get only once it has one. The JetStream API's "$JS.API.>" also
// matches the subject, so the list is read, not the count.
func ServesDirectGet(ctx context.Context, n Node, stream string) (bool, error) {
	subject := "$JS.API.DIRECT.GET." + stream
	var subsz struct {
		List []struct {
			Subject string `json:"subject"`
		} `json:"subscriptions_list"`
	}
	q := url.Values{"subs": {"1"}, "test": {subject}}
	if err := getJSON(ctx, n.MonitorURL+"/subsz?"+q.Encode(), &subsz); err != nil {
		return false, err
	}
	for _, e := range subsz.List {
		if e.Subject == subject || e.Subject == subject+".>" {
			return true, nil
		}
	}
	return false, nil
}

// Healthy asks a node's full /healthz (JetStream current with the meta
// leader, every assigned stream and consumer healthy).
func Healthy(ctx context.Context, n Node) error {
	return getJSON(ctx, n.MonitorURL+"/healthz", nil)
}

// WaitReady waits until every node is healthy, has a route to every other
// node, agrees on one meta leader, and answers a JetStream API request
// through its own client port. /healthz?js-enabled-only answers before a
// meta leader exists (nats-server monitor.go, healthz; seen on 2.15.2), so
// it is not enough; and the
// first API request right after the meta leader is known could still time
// out on a loaded machine (a flaky first write in make test).
func WaitReady(ctx context.Context, c Cluster, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if last = readyOnce(ctx, c); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster not ready after %s: %v", timeout, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func readyOnce(ctx context.Context, c Cluster) error {
	nodes := c.Nodes()
	leader := ""
	for _, n := range nodes {
		if err := Healthy(ctx, n); err != nil {
			return fmt.Errorf("%s: %v", n.Name, err)
		}
		r, err := GetRoutez(ctx, n)
		if err != nil {
			return fmt.Errorf("%s: %v", n.Name, err)
		}
		if p := len(r.Peers()); p != len(nodes)-1 {
			return fmt.Errorf("%s: routes to %d of %d peers", n.Name, p, len(nodes)-1)
		}
		if len(nodes) == 1 {
			return nil // a standalone server has no meta group
		}
		j, err := GetJsz(ctx, n)
		if err != nil {
			return fmt.Errorf("%s: %v", n.Name, err)
		}
		if j.Meta == nil || j.Meta.Leader == "" {
			return fmt.Errorf("%s: no meta leader yet", n.Name)
		}
		if leader != "" && j.Meta.Leader != leader {
			return fmt.Errorf("nodes disagree on the meta leader (%s, %s)", leader, j.Meta.Leader)
		}
		leader = j.Meta.Leader
		if n.Name == leader {
			if err := metaPeersOnline(j, n.Name, nodes); err != nil {
				return fmt.Errorf("meta leader %s: %v", n.Name, err)
			}
		}
	}
	for _, n := range nodes {
		if err := apiAnswers(ctx, n); err != nil {
			return fmt.Errorf("%s: JetStream API: %v", n.Name, err)
		}
	}
	return nil
}

// metaPeersOnline says whether the meta leader's /jsz lists every other
// node as a current, online peer. Until it does, the leader may refuse to
// place a stream ("no suitable peers for placement, peer offline", 10005):
// seen right after the rest of the readiness checks passed.
func metaPeersOnline(leader Jsz, leaderName string, nodes []Node) error {
	peers := map[string]bool{}
	for _, p := range leader.Meta.Replica {
		switch {
		case p.Offline:
			return fmt.Errorf("sees peer %s offline", p.Name)
		case !p.Current:
			return fmt.Errorf("sees peer %s not current", p.Name)
		}
		peers[p.Name] = true
	}
	for _, n := range nodes {
		if n.Name != leaderName && !peers[n.Name] {
			return fmt.Errorf("does not list %s among its peers yet", n.Name)
		}
	}
	return nil
}

// apiAnswers sends $JS.API.INFO (account info) through n's client port and
// waits for the answer.
func apiAnswers(ctx context.Context, n Node) error {
	nc, err := nats.Connect(n.ClientURL, nats.Name("chaos-ready"), nats.IgnoreDiscoveredServers(), nats.NoReconnect(),
		nats.Timeout(2*time.Second), n.ClientOption())
	if err != nil {
		return err
	}
	defer nc.Close()
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	msg, err := nc.RequestWithContext(rctx, "$JS.API.INFO", nil)
	if err != nil {
		return err
	}
	var reply struct {
		Error *struct {
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg.Data, &reply); err != nil {
		return err
	}
	if reply.Error != nil {
		return errors.New(reply.Error.Description)
	}
	return nil
}
