package nemesis

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

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Probes read the monitoring port with a fresh connection each time, so a
// killed or restarted node is never answered for by a kept-alive socket.
var probeClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// get fetches a monitoring path with the env's probe timeout. It returns the
// status and body, or the transport error.
func (e *Env) get(ctx context.Context, n cluster.Node, path string) (int, []byte, error) {
	if n.MonitorURL == "" {
		return 0, nil, fmt.Errorf("%s has no monitor URL: %w", n.Name, syscall.ECONNREFUSED)
	}
	ctx, cancel := context.WithTimeout(ctx, e.probeTimeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.MonitorURL+path, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, body, err
}

func (e *Env) getJSON(ctx context.Context, n cluster.Node, path string, v any) error {
	code, body, err := e.get(ctx, n, path)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", n.Name, path, code, oneLine(body))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s %s: %w", n.Name, path, err)
	}
	return nil
}

// refused reports whether a probe error means nothing is listening: the
// connection was refused, or reset/closed before any answer.
func refused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// timedOut reports whether a probe error is a timeout: the port accepted
// (or the dial hung) but nothing answered.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// within polls check every step until it returns true or d passes. It
// returns whether it succeeded, how long it took, and what the last call saw.
func within(ctx context.Context, d, step time.Duration, check func(context.Context) (bool, string)) (bool, time.Duration, string) {
	start := time.Now()
	deadline := start.Add(d)
	for {
		ok, seen := check(ctx)
		if ok {
			return true, time.Since(start), seen
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false, time.Since(start), seen
		}
		select {
		case <-ctx.Done():
		case <-time.After(step):
		}
	}
}

// routez reads a node's route peers.
func (e *Env) peers(ctx context.Context, n cluster.Node) ([]string, error) {
	var r cluster.Routez
	if err := e.getJSON(ctx, n, "/routez", &r); err != nil {
		return nil, err
	}
	p := r.Peers()
	slices.Sort(p)
	return p, nil
}

// routesCut checks that no node lists a peer outside its own group. Nodes
// in no group must list no peer at all.
func (e *Env) routesCut(ctx context.Context, groups [][]int) (bool, string) {
	nodes := e.nodes()
	group := make([]int, len(nodes))
	for i := range group {
		group[i] = -1 - i // alone
	}
	for g, members := range groups {
		for _, i := range members {
			group[i] = g
		}
	}
	var bad []string
	for i, n := range nodes {
		ps, err := e.peers(ctx, n)
		if err != nil {
			return false, err.Error()
		}
		for _, p := range ps {
			if j := e.index(p); j >= 0 && group[j] != group[i] {
				bad = append(bad, n.Name+"->"+p)
			}
		}
	}
	if len(bad) > 0 {
		return false, "routes still up: " + strings.Join(bad, " ")
	}
	return true, "routes cut"
}

// routesFull checks that each listed node (all when idx is nil) has a route
// to every other node.
func (e *Env) routesFull(ctx context.Context, idx []int) (bool, string) {
	nodes := e.nodes()
	if idx == nil {
		for i := range nodes {
			idx = append(idx, i)
		}
	}
	for _, i := range idx {
		n := nodes[i]
		ps, err := e.peers(ctx, n)
		if err != nil {
			return false, err.Error()
		}
		if len(ps) != len(nodes)-1 {
			return false, fmt.Sprintf("%s routes to [%s], want %d peers", n.Name, strings.Join(ps, " "), len(nodes)-1)
		}
	}
	return true, "routes full"
}

// down checks that node i is not running and its monitor port refuses.
func (e *Env) down(ctx context.Context, i int) (bool, string) {
	st, err := e.Cluster.State(ctx, i)
	if err != nil {
		return false, "state: " + err.Error()
	}
	n := e.nodes()[i]
	_, _, perr := e.get(ctx, n, "/varz")
	switch {
	case st.Running:
		return false, fmt.Sprintf("%s still running (monitor: %s)", n.Name, probeSeen(perr))
	case perr == nil:
		return false, fmt.Sprintf("%s not running but its monitor answered", n.Name)
	case !refused(perr):
		return false, fmt.Sprintf("%s not running but its monitor did not refuse: %v", n.Name, perr)
	}
	return true, fmt.Sprintf("%s down, monitor refused", n.Name)
}

// frozen checks that node i is paused: the runtime says so and a monitor
// request times out.
func (e *Env) frozen(ctx context.Context, i int) (bool, string) {
	st, err := e.Cluster.State(ctx, i)
	if err != nil {
		return false, "state: " + err.Error()
	}
	n := e.nodes()[i]
	_, _, perr := e.get(ctx, n, "/varz")
	switch {
	case perr == nil:
		return false, fmt.Sprintf("%s monitor still answers (state paused=%v)", n.Name, st.Paused)
	case !timedOut(perr):
		return false, fmt.Sprintf("%s monitor failed without timing out: %v", n.Name, perr)
	case !st.Paused:
		return false, fmt.Sprintf("%s monitor timed out but the runtime does not report it paused", n.Name)
	}
	return true, fmt.Sprintf("%s paused, monitor timed out after %s", n.Name, e.probeTimeout())
}

// up checks that node i runs, answers, and has routes to every peer.
func (e *Env) up(ctx context.Context, i int) (bool, string) {
	st, err := e.Cluster.State(ctx, i)
	if err != nil {
		return false, "state: " + err.Error()
	}
	n := e.nodes()[i]
	if !st.Running || st.Paused {
		return false, fmt.Sprintf("%s running=%v paused=%v", n.Name, st.Running, st.Paused)
	}
	return e.routesFull(ctx, []int{i})
}

// healthy checks a node's full /healthz.
func (e *Env) healthy(ctx context.Context, n cluster.Node) (bool, string) {
	code, body, err := e.get(ctx, n, "/healthz")
	if err != nil {
		return false, fmt.Sprintf("%s /healthz: %v", n.Name, err)
	}
	if code != http.StatusOK {
		return false, fmt.Sprintf("%s /healthz %d %s", n.Name, code, oneLine(body))
	}
	return true, n.Name + " healthy"
}

func probeSeen(err error) string {
	if err == nil {
		return "answered"
	}
	return err.Error()
}

func oneLine(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }
