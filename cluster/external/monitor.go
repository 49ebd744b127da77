package external

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The monitoring endpoints are all an external cluster tells about its
// nodes: whether a node runs is whether its monitor answers.

// probeClient opens a fresh connection per request, so a killed node is
// never answered for by a kept-alive socket.
var probeClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// varz is the part of /varz the run records and watches.
type varz struct {
	ServerName   string    `json:"server_name"`
	Version      string    `json:"version"`
	GitCommit    string    `json:"git_commit"`
	ConfigDigest string    `json:"config_digest"`
	Start        time.Time `json:"start"`
	Mem          int64     `json:"mem"`
	Cluster      struct {
		Name string `json:"name"`
	} `json:"cluster"`
}

// getJSON reads base+path within timeout. A non-200 answer is an error
// that still proves the server answered (see answered).
func getJSON(ctx context.Context, base, path string, timeout time.Duration, v any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return err
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return &statusError{path: path, status: resp.Status, body: oneLine(string(body))}
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

type statusError struct{ path, status, body string }

func (e *statusError) Error() string { return fmt.Sprintf("%s: %s %s", e.path, e.status, e.body) }

// probe is what one monitoring request showed.
type probe int

const (
	answered probe = iota // the server answered, whatever the status
	gone                  // nothing listens: refused, reset, no route, no such host
	silent                // no answer within the timeout
	unknown               // anything else (a TLS or proxy error...)
)

func classify(err error) probe {
	var se *statusError
	var dns *net.DNSError
	var ne net.Error
	switch {
	case err == nil || errors.As(err, &se):
		return answered
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.As(err, &dns) && dns.IsNotFound:
		return gone
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return silent
	}
	return unknown
}

// routez and jsz: the parts the readiness check needs.
type routez struct {
	Routes []struct {
		RemoteName string `json:"remote_name"`
	} `json:"routes"`
}

func (r routez) peers() []string {
	var out []string
	for _, rt := range r.Routes {
		if rt.RemoteName != "" && !slices.Contains(out, rt.RemoteName) {
			out = append(out, rt.RemoteName)
		}
	}
	slices.Sort(out)
	return out
}

type jsz struct {
	Meta *struct {
		Leader string `json:"leader"`
		Size   int    `json:"cluster_size"`
	} `json:"meta_cluster"`
}

// readyOnce checks that every node's JetStream is current with the meta
// leader (/healthz?js-meta-only, which leaves out streams: other users'
// streams are not the run's to wait for), that each routes to exactly the
// other given nodes, and that all agree on one meta leader. A route to a
// server that is not in --server is a refusal: the checks would count
// routes wrong, and faults would miss a node.
func readyOnce(ctx context.Context, names, monitors []string, timeout time.Duration) error {
	leader := ""
	health := "/healthz?js-meta-only=true"
	if len(names) == 1 {
		// A lone server has no meta group, and its js-meta-only check still
		// scans every stream's store; JetStream being on is what counts.
		health = "/healthz?js-enabled-only=true"
	}
	for i, name := range names {
		mon := monitors[i]
		if err := getJSON(ctx, mon, health, timeout, nil); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		var r routez
		if err := getJSON(ctx, mon, "/routez", timeout, &r); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		peers := r.peers()
		for _, p := range peers {
			if !slices.Contains(names, p) {
				return refuse("%s routes to %s, which is not in --server: give every server of the cluster", name, p)
			}
		}
		if len(peers) != len(names)-1 {
			return fmt.Errorf("%s routes to [%s], want the %d other nodes", name, strings.Join(peers, " "), len(names)-1)
		}
		if len(names) == 1 {
			return nil
		}
		var j jsz
		if err := getJSON(ctx, mon, "/jsz", timeout, &j); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		switch {
		case j.Meta == nil || j.Meta.Leader == "":
			return fmt.Errorf("%s sees no JetStream meta leader", name)
		case leader != "" && j.Meta.Leader != leader:
			return fmt.Errorf("nodes disagree on the meta leader (%s, %s)", leader, j.Meta.Leader)
		}
		leader = j.Meta.Leader
	}
	return nil
}

// waitReady polls readyOnce until it passes, refuses, or timeout passes.
func waitReady(ctx context.Context, names, monitors []string, probe, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		err := readyOnce(ctx, names, monitors, probe)
		if err == nil || errors.Is(err, ErrRefused) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster not ready within --connect-timeout %s: %v", timeout, err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
