package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Rebuild is the catch-up fault: kill a node, delete its store (a new,
// empty volume), optionally put a memory limit on it, and at the heal start
// it again so that it must rebuild the stream from its peers. Unlike wipe,
// the heal does not wait for the catch-up to finish: it returns once the node
// runs with full routes, so the workload can watch the catch-up itself.
//
// `--nemesis catchup` picks a random node with no limit; the catch-up
// workload scripts it on the node it chose, with its --memory-limit.
//
// Injecting checks that the node is down (the runtime says so and its
// monitor refuses) and that the runtime deleted the store and set the limit.
// Healing checks that it runs with routes to every peer.
type Rebuild struct {
	// Node is the target's index; negative picks one with Env.Rand.
	Node int
	// MemoryLimit is the hard limit the node restarts under (0: none). It
	// stays on after the heal: lifting it is the workload's business (the
	// limit is what is under test), and Restore does not touch it.
	MemoryLimit int64
}

func (Rebuild) Name() string { return "catchup" }

func (r Rebuild) Needs() []cluster.Capability {
	caps := []cluster.Capability{cluster.CapKill, cluster.CapWipe}
	if r.MemoryLimit > 0 {
		caps = append(caps, cluster.CapMemoryLimit)
	}
	return caps
}

func (r Rebuild) Inject(ctx context.Context, env *Env) (Active, error) {
	n := len(env.nodes())
	if n == 0 {
		return nil, fmt.Errorf("the cluster has no nodes")
	}
	i := r.Node
	if i < 0 || i >= n {
		i = env.pickNode(n)
	}
	name := env.name(i)
	a := &active{targets: []string{name}}
	env.logf("nemesis: catchup %s: kill, wipe, restart empty", name)
	a.heal = func(ctx context.Context) Check { return startAgain(ctx, env, i) }
	called := time.Now()
	if err := env.Cluster.Kill(ctx, i); err != nil {
		return a, fmt.Errorf("kill %s: %w", name, err)
	}
	env.markEnded(ctx, called, i)
	ok, took, seen := within(ctx, env.verifyWithin(), 50*time.Millisecond, func(ctx context.Context) (bool, string) {
		return env.down(ctx, i)
	})
	if !ok {
		// Wiping a running node is not allowed: leave it, report it.
		a.check = Check{Detail: fmt.Sprintf("%s not down within %s, store left alone: %s", name, secs(took), seen)}
		return a, nil
	}
	if err := env.Cluster.Wipe(ctx, i); err != nil {
		return a, fmt.Errorf("wipe %s: %w", name, err)
	}
	detail := fmt.Sprintf("%s killed after %s and its store deleted", name, secs(took))
	if r.MemoryLimit > 0 {
		if err := env.Cluster.SetMemoryLimit(ctx, i, r.MemoryLimit); err != nil {
			return a, fmt.Errorf("set the memory limit of %s: %w", name, err)
		}
		detail += fmt.Sprintf(", memory limit %d bytes set", r.MemoryLimit)
	}
	a.check = Check{OK: true, Detail: detail}
	return a, nil
}
