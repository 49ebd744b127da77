package nemesis

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// memberReplace replaces one random server by a fresh one, as an operator
// replaces a lost machine: it stops the server, wipes its store, starts it
// empty under a new server_name (n2 -> n2-r1), has the stream's peer on the
// old server removed ($JS.API.STREAM.PEER.REMOVE.<stream>, which places the
// replica on the only server left out: the new one), and removes the old
// server from the cluster ($JS.API.SERVER.REMOVE, system account). The
// stream peer goes first: a server removal with no spare server leaves the
// stream short of a replica on servers before 2.15. Injecting checks the
// peer lists before and after: the old server is in neither the meta group
// nor the stream's peers, the new one is in both. Healing has nothing to
// undo; it waits until the new server is a current replica and its own
// /healthz is OK. The target is the old name; the new one is in the
// detail and in Nodes() from then on.
type memberReplace struct{}

func (memberReplace) Name() string { return "member-replace" }

func (memberReplace) Needs() []cluster.Capability {
	return []cluster.Capability{cluster.CapStop, cluster.CapWipe, cluster.CapRename}
}

// members are the peer lists member-replace compares.
type members struct{ meta, stream []string }

func (m members) String() string {
	return fmt.Sprintf("meta [%s], stream [%s]", strings.Join(m.meta, " "), strings.Join(m.stream, " "))
}

func (memberReplace) Inject(ctx context.Context, env *Env) (Active, error) {
	if env.Stream == "" {
		return nil, fmt.Errorf("member-replace: no workload stream whose peer to move")
	}
	api, err := env.memberAPI(ctx)
	if err != nil {
		return nil, withContext("member-replace", err)
	}
	defer api.close()
	n := len(env.nodes())
	if n < 2 {
		return nil, fmt.Errorf("member-replace needs at least 2 nodes, the cluster has %d", n)
	}
	i := env.pickNode(n)
	old := env.name(i)
	next := nextServerName(old, env.allNames())
	before, err := env.members(ctx)
	if err != nil {
		return nil, withContext("member-replace: peers before", err)
	}
	a := &active{targets: []string{old}}
	a.heal = func(ctx context.Context) Check { return startAgain(ctx, env, i) }
	env.logf("nemesis: member-replace %s by %s (%s)", old, next, before)
	if err := env.Cluster.Stop(ctx, i); err != nil {
		return a, withContext("stop "+old, err)
	}
	env.markEffect()
	if ok, took, seen := env.waitDown(ctx, i); !ok {
		a.check = Check{Detail: fmt.Sprintf("%s not down within %s, left as it was: %s", old, secs(took), seen)}
		return a, nil
	}
	if err := env.Cluster.Wipe(ctx, i); err != nil {
		return a, withContext("wipe "+old, err)
	}
	if err := env.Cluster.StartAs(ctx, i, next); err != nil {
		return a, withContext("start "+old+" as "+next, err)
	}
	a.heal = func(ctx context.Context) Check { return replicaCurrent(ctx, env, i) }
	start := time.Now()
	var steps []string
	if up := waitUp(ctx, env, i); !up.OK {
		steps = append(steps, up.Detail)
	}
	if slices.Contains(before.stream, old) {
		steps = append(steps, retryAPI(ctx, env, "stream peer "+old+" removed", func(ctx context.Context) error {
			return api.removeStreamPeer(ctx, env.Stream, old)
		}))
	}
	steps = append(steps, retryAPI(ctx, env, "server "+old+" removed", func(ctx context.Context) error {
		return api.removeServer(ctx, old)
	}))
	var after members
	ok, took, seen := within(ctx, env.verifyWithin(), 250*time.Millisecond, func(ctx context.Context) (bool, string) {
		m, err := env.members(ctx)
		if err != nil {
			return false, err.Error()
		}
		after = m
		for _, list := range [][]string{m.meta, m.stream} {
			if slices.Contains(list, old) || !slices.Contains(list, next) {
				return false, "peers " + m.String()
			}
		}
		return true, "peers " + m.String()
	})
	what := fmt.Sprintf("%s replaced by %s (%s) after %s; peers %s -> %s", old, next, strings.Join(steps, ", "), secs(time.Since(start)), before, after)
	if !ok {
		a.check = Check{Detail: fmt.Sprintf("%s; not as asked within %s: %s", what, secs(took), seen)}
		return a, nil
	}
	a.check = Check{OK: true, Detail: what}
	return a, nil
}

func (e *Env) waitDown(ctx context.Context, i int) (bool, time.Duration, string) {
	return within(ctx, e.verifyWithin(), 100*time.Millisecond, func(ctx context.Context) (bool, string) {
		return e.down(ctx, i)
	})
}

// retryAPI calls f until it succeeds or VerifyWithin passes: a server that
// has just joined is offered for placement only once the meta leader has
// heard from it, and one membership change waits for the last.
func retryAPI(ctx context.Context, env *Env, what string, f func(context.Context) error) string {
	var last error
	ok, took, _ := within(ctx, env.verifyWithin(), 500*time.Millisecond, func(ctx context.Context) (bool, string) {
		last = f(ctx)
		return last == nil, ""
	})
	if !ok {
		return fmt.Sprintf("%s: still failing after %s: %v", what, secs(took), last)
	}
	return fmt.Sprintf("%s after %s", what, secs(took))
}

// nextServerName is old's replacement: n2 -> n2-r1 -> n2-r2, skipping
// names in use.
func nextServerName(old string, inUse []string) string {
	base, gen := old, 0
	if b, g, ok := strings.Cut(old, "-r"); ok {
		if _, err := fmt.Sscanf(g, "%d", &gen); err == nil && fmt.Sprint(gen) == g {
			base = b
		} else {
			gen = 0
		}
	}
	for {
		gen++
		name := fmt.Sprintf("%s-r%d", base, gen)
		if !slices.Contains(inUse, name) {
			return name
		}
	}
}

// members reads the meta group from the meta leader's /jsz and the
// stream's peers from its leader's, both sorted.
func (e *Env) members(ctx context.Context) (members, error) {
	var m members
	for _, n := range e.nodes() {
		j, err := e.monitor().JszStreams(ctx, n)
		if err != nil || j.Meta == nil {
			continue
		}
		if j.Meta.Leader == n.Name && m.meta == nil {
			m.meta = []string{n.Name}
			for _, r := range j.Meta.Replicas {
				m.meta = append(m.meta, r.Name)
			}
		}
		if s, ok := j.Stream(e.Stream); ok && s.Leader() == n.Name && m.stream == nil {
			m.stream = []string{n.Name}
			for _, r := range s.Cluster.Replicas {
				m.stream = append(m.stream, r.Name)
			}
		}
	}
	switch {
	case m.meta == nil:
		return members{}, fmt.Errorf("no node's /jsz leads the meta group")
	case m.stream == nil:
		return members{}, fmt.Errorf("no node's /jsz leads stream %s", e.Stream)
	}
	slices.Sort(m.meta)
	slices.Sort(m.stream)
	return m, nil
}

// replicaCurrent waits until node i is back with full routes, the
// stream's replicas, its own included, are all current, and node i's own
// /healthz is OK.
func replicaCurrent(ctx context.Context, env *Env, i int) Check {
	name := env.name(i)
	ok, took, seen := within(ctx, env.verifyWithin(), 250*time.Millisecond, func(ctx context.Context) (bool, string) {
		if ok, s := env.up(ctx, i); !ok {
			return false, s
		}
		m, err := env.members(ctx)
		if err != nil {
			return false, err.Error()
		}
		if !slices.Contains(m.stream, name) {
			return false, fmt.Sprintf("%s is not a peer of stream %s: %s", name, env.Stream, m)
		}
		ok, current := env.streamCurrent(ctx)
		if !ok {
			return false, current
		}
		// The leader calls a replica current once it has stored the raft
		// log, also while the replica's stream is still catching up
		// (nats-server server/raft.go, (*raft).Peers): only the new
		// server's own /healthz says it holds the stream
		// (repro/corruptleader: a catch-up that never ends, called current).
		if ok, health := env.healthy(ctx, env.nodes()[i]); !ok {
			return false, current + "; but " + health
		}
		return true, current + ", " + name + " /healthz ok"
	})
	if !ok {
		return Check{Detail: fmt.Sprintf("%s not a current replica within %s: %s", name, secs(took), seen)}
	}
	return Check{OK: true, Detail: fmt.Sprintf("%s a current replica after %s: %s", name, secs(took), seen)}
}
