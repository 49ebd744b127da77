package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// monitor reads the nodes' monitoring endpoints within the env's probe
// timeout.
func (e *Env) monitor() cluster.Monitor { return cluster.Monitor{Timeout: e.probeTimeout()} }

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

// peers reads a node's route peers, sorted.
func (e *Env) peers(ctx context.Context, n cluster.Node) ([]string, error) {
	r, err := e.monitor().Routez(ctx, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", n.Name, err)
	}
	return r.Peers(), nil
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
	perr := e.monitor().Get(ctx, n, "/varz", nil)
	switch {
	case st.Running:
		return false, fmt.Sprintf("%s still running (monitor: %s)", n.Name, probeSeen(perr))
	case cluster.Answered(perr):
		return false, fmt.Sprintf("%s not running but its monitor answered", n.Name)
	case !cluster.Refused(perr):
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
	perr := e.monitor().Get(ctx, n, "/varz", nil)
	switch {
	case cluster.Answered(perr):
		return false, fmt.Sprintf("%s monitor still answers (state paused=%v)", n.Name, st.Paused)
	case !cluster.TimedOut(perr):
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
	_, err := e.monitor().Healthz(ctx, n, cluster.HealthzOptions{})
	var he *cluster.HTTPError
	switch {
	case errors.As(err, &he):
		return false, fmt.Sprintf("%s /healthz %d %s", n.Name, he.Status, oneLine([]byte(he.Body)))
	case err != nil:
		return false, fmt.Sprintf("%s /healthz: %v", n.Name, err)
	}
	return true, n.Name + " healthy"
}

func probeSeen(err error) string {
	if cluster.Answered(err) {
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
