package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// The monitoring endpoints are the ground truth that faults verify against:
// a partition is real when /routez says the routes are gone, a node is up
// when /healthz answers, down when its monitoring port refuses, paused when
// a request to it times out. Every reader of them goes through Monitor.

// DefaultMonitorTimeout bounds each request of a Monitor whose Timeout is
// zero.
const DefaultMonitorTimeout = 2 * time.Second

// monitorBodyLimit caps one answer: /jsz with every stream's config stays
// far below it.
const monitorBodyLimit = 16 << 20

// monitorHTTP opens a fresh connection for every request, so a killed or
// restarted node is never answered for by a kept-alive socket.
var monitorHTTP = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// Monitor reads the servers' monitoring endpoints (nats-server
// server/monitor.go). The zero Monitor waits DefaultMonitorTimeout.
type Monitor struct {
	// Timeout bounds each request, from the dial to the last byte of the
	// answer; zero means DefaultMonitorTimeout.
	Timeout time.Duration
}

func (m Monitor) timeout() time.Duration {
	if m.Timeout > 0 {
		return m.Timeout
	}
	return DefaultMonitorTimeout
}

// Get reads path (with its query) from n's monitoring port and decodes the
// JSON answer into v; a nil v reads the answer and drops it, a
// *json.RawMessage keeps it as it is. An answer other than 200 OK is an
// *HTTPError (Answered says the server answered all the same); a node
// without a monitor URL is refused (Refused).
func (m Monitor) Get(ctx context.Context, n Node, path string, v any) error {
	if n.MonitorURL == "" {
		return fmt.Errorf("%s has no monitor URL: %w", n.Name, syscall.ECONNREFUSED)
	}
	ctx, cancel := context.WithTimeout(ctx, m.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.MonitorURL+path, nil)
	if err != nil {
		return err
	}
	resp, err := monitorHTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, monitorBodyLimit))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return &HTTPError{Path: path, Status: resp.StatusCode, Body: string(body)}
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// HTTPError is a monitoring endpoint's answer other than 200 OK.
type HTTPError struct {
	Path   string // with its query
	Status int
	Body   string // as the server sent it
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("%s: %d %s: %s", e.Path, e.Status, http.StatusText(e.Status), oneLine(e.Body))
}

// NotServed says whether err is a 404: the server has no such endpoint
// (/raftz on older releases).
func NotServed(err error) bool {
	var he *HTTPError
	return errors.As(err, &he) && he.Status == http.StatusNotFound
}

// Answered says whether the server answered the request, whatever the
// status: err is nil or an *HTTPError.
func Answered(err error) bool {
	var he *HTTPError
	return err == nil || errors.As(err, &he)
}

// Refused says whether err means nothing listens on the port: the
// connection was refused, or reset or closed before any answer. A node
// that is down refuses; one that is paused does not (TimedOut).
func Refused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// Unreachable says whether err means the address leads nowhere: no route
// to the host or its network, or no such host.
func Unreachable(err error) bool {
	var dns *net.DNSError
	return errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) ||
		errors.As(err, &dns) && dns.IsNotFound
}

// TimedOut says whether err is a timeout: the port accepted (or the dial
// hung) but nothing answered in time, as a paused node does.
func TimedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// oneLine folds s onto one line of at most 200 bytes, for error messages.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
