package nemesis

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

type partKind int

const (
	partOne    partKind = iota // isolate a random node
	partLeader                 // isolate the stream leader (meta leader without a stream)
	partHalves                 // random majority against minority
)

// partition cuts the cluster network and checks, on every node's /routez,
// that no route crosses the cut. Healing removes the cut and checks that
// every node has routes to all its peers again.
type partition struct{ kind partKind }

func (p partition) Name() string {
	return [...]string{"partition-one", "partition-leader", "partition-halves"}[p.kind]
}

func (p partition) Needs() []cluster.Capability { return []cluster.Capability{cluster.CapPartition} }

func (p partition) Inject(ctx context.Context, env *Env) (Active, error) {
	n := len(env.nodes())
	if n < 2 {
		return nil, fmt.Errorf("%s needs at least 2 nodes, the cluster has %d", p.Name(), n)
	}
	var minority []int
	var why string
	switch p.kind {
	case partOne:
		minority = []int{env.pickNode(n)}
	case partLeader:
		name, role, err := env.leaderTarget(ctx)
		if err != nil {
			return nil, err
		}
		i := env.index(name)
		if i < 0 {
			return nil, fmt.Errorf("%s %q is not a node of the cluster", role, name)
		}
		minority, why = []int{i}, " ("+role+")"
	case partHalves:
		perm := env.rng().Perm(n)
		minority = perm[n/2+1:]
	}
	slices.Sort(minority)
	var majority []int
	for i := range n {
		if !slices.Contains(minority, i) {
			majority = append(majority, i)
		}
	}
	groups := [][]int{majority, minority}
	a := &active{targets: env.names(minority)}
	a.heal = func(ctx context.Context) Check { return healPartition(ctx, env) }
	desc := fmt.Sprintf("cut %s%s from %s", strings.Join(env.names(minority), " "), why, strings.Join(env.names(majority), " "))
	env.logf("nemesis: %s", desc)
	if err := env.Cluster.Partition(ctx, groups); err != nil {
		// Part of the rules may be in place: the caller must heal.
		return a, fmt.Errorf("%s: %w", desc, err)
	}
	env.markEffect()
	ok, took, seen := within(ctx, env.verifyWithin(), 250*time.Millisecond, func(ctx context.Context) (bool, string) {
		return env.routesCut(ctx, groups)
	})
	if ok {
		a.check = Check{OK: true, Detail: fmt.Sprintf("%s: routes cut after %s", desc, secs(took))}
	} else {
		a.check = Check{Detail: fmt.Sprintf("%s: routes not cut within %s: %s", desc, secs(took), seen)}
	}
	return a, nil
}

// leaderTarget is what partition-leader isolates: the workload stream's
// leader, or the meta leader when there is no stream.
func (e *Env) leaderTarget(ctx context.Context) (name, role string, err error) {
	if e.Stream != "" {
		name, err = e.streamLeader(ctx)
		return name, "stream " + e.Stream + " leader", err
	}
	name, err = MetaLeader(ctx, e.monitor(), e.nodes())
	return name, "meta leader", err
}

func healPartition(ctx context.Context, env *Env) Check {
	if err := env.Cluster.Heal(ctx); err != nil {
		return Check{Detail: "heal: " + err.Error()}
	}
	ok, took, seen := within(ctx, env.verifyWithin(), 250*time.Millisecond, func(ctx context.Context) (bool, string) {
		return env.routesFull(ctx, nil)
	})
	if !ok {
		return Check{Detail: fmt.Sprintf("routes not full within %s: %s", secs(took), seen)}
	}
	return Check{OK: true, Detail: fmt.Sprintf("routes full after %s", secs(took))}
}

func (e *Env) names(idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = e.name(i)
	}
	return out
}
