package nemesis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

type powerScope int

const (
	powerOne      powerScope = iota // a random node
	powerMajority                   // a random majority
	powerAll                        // every node
)

// powerLoss cuts the power of one random node, a random majority or every
// node (cluster.PowerLosser): the nodes are killed at the same instant and
// their stores lose every write they had not fsynced. A plain kill loses
// nothing, since the host's page cache survives it.
//
// Injecting checks that every target is down (as kill does) and that its
// store was rolled back, and says how many unsynced bytes each discarded.
// Zero bytes is a real outcome (sync_interval always); a store that saw no
// write at all since it was mounted is not: then the node is not on the
// power-loss store and the check fails. Healing starts every target and
// waits until each is up with routes to every peer. A cluster that does not
// come back leaves the heal unverified, and WaitRecovered reports it.
type powerLoss struct{ scope powerScope }

func (p powerLoss) Name() string {
	return [...]string{"power-loss", "power-loss-majority", "power-loss-all"}[p.scope]
}

func (powerLoss) Needs() []cluster.Capability { return []cluster.Capability{cluster.CapPowerLoss} }

// NeedsPowerLossStore says whether a fault of the list cuts power: the
// cluster must then be started with cluster.Config.PowerLossStore.
func NeedsPowerLossStore(faults []Fault) bool {
	for _, f := range faults {
		if slices.Contains(f.Needs(), cluster.CapPowerLoss) {
			return true
		}
	}
	return false
}

// targets picks the nodes, sorted.
func (p powerLoss) targets(n int, env *Env) []int {
	r := env.rng()
	switch p.scope {
	case powerOne:
		return []int{env.pickNode(n)}
	case powerMajority:
		t := r.Perm(n)[:n/2+1]
		slices.Sort(t)
		return t
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return all
}

func (p powerLoss) Inject(ctx context.Context, env *Env) (Active, error) {
	if err := env.Cluster.Supports(cluster.CapPowerLoss); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	pl, ok := env.Cluster.(cluster.PowerLosser)
	if !ok {
		return nil, fmt.Errorf("%s: %w: the %s runtime has no power-loss control", p.Name(), cluster.ErrUnsupported, env.Cluster.Runtime())
	}
	n := len(env.nodes())
	if n == 0 {
		return nil, errors.New(p.Name() + ": the cluster has no nodes")
	}
	idx := p.targets(n, env)
	names := make([]string, len(idx))
	for k, i := range idx {
		names[k] = env.name(i)
	}
	a := &active{targets: names}
	a.heal = func(ctx context.Context) Check { return startAll(ctx, env, idx) }
	env.logf("nemesis: %s %s", p.Name(), strings.Join(names, ","))
	discards, err := pl.PowerLoss(ctx, idx)
	if err != nil {
		return a, fmt.Errorf("%s %s: %w", p.Name(), strings.Join(names, ","), err)
	}
	env.markEffect()
	a.check = checkPowerLoss(ctx, env, idx, discards)
	return a, nil
}

// checkPowerLoss: every target down and its rollback seen.
func checkPowerLoss(ctx context.Context, env *Env, idx []int, discards []cluster.Discard) Check {
	ok, took, seen := within(ctx, env.verifyWithin(), 100*time.Millisecond, func(ctx context.Context) (bool, string) {
		var states []string
		for _, i := range idx {
			down, s := env.down(ctx, i)
			if !down {
				return false, s
			}
			states = append(states, s)
		}
		return true, strings.Join(states, ", ")
	})
	if !ok {
		return Check{Detail: fmt.Sprintf("not all down within %s: %s", secs(took), seen)}
	}
	if len(discards) != len(idx) {
		return Check{Detail: fmt.Sprintf("%s; the runtime reported %d rollbacks for %d nodes", seen, len(discards), len(idx))}
	}
	out := Check{OK: true}
	parts := []string{seen + " after " + secs(took)}
	for _, d := range discards {
		s := fmt.Sprintf("%s discarded %d unsynced bytes (%d files rolled back, %d creates/unlinks/renames undone; %d bytes written and %d fsyncs since its store was mounted",
			d.Node, d.Bytes, d.Files, d.Undone, d.Written, d.Fsyncs)
		if len(d.Largest) > 0 {
			s += "; most from " + strings.Join(d.Largest, ", ")
		}
		s += ")"
		if d.Written == 0 {
			out.OK = false
			s = fmt.Sprintf("%s: its store saw no write since it was mounted, so the power loss had nothing to act on (is the node on the power-loss store?)", d.Node)
		}
		parts = append(parts, s)
	}
	out.Detail = strings.Join(parts, "; ")
	return out
}
