package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// loss drops a share of the packets between one random node and its peers,
// at random, each way (nftables numgen in the node's network namespace; no
// sch_netem needed). Injecting checks the rules' own counters: the drop
// rule has dropped packets of the peer traffic the rules saw. Healing
// removes the rules and checks that they are gone and the node routes to
// every peer.
type loss struct{ percent float64 }

func (f loss) Name() string { return "loss=" + strconv.FormatFloat(f.percent, 'f', -1, 64) + "%" }

func (f loss) Needs() []cluster.Capability { return []cluster.Capability{cluster.CapLoss} }

func (f loss) Inject(ctx context.Context, env *Env) (Active, error) {
	n := len(env.nodes())
	if n == 0 {
		return nil, errors.New(f.Name() + ": the cluster has no nodes")
	}
	i := env.pickNode(n)
	name := env.name(i)
	a := &active{targets: []string{name}}
	a.heal = func(ctx context.Context) Check {
		held, _ := env.Cluster.NetStats(ctx, i) // the totals, for the record
		if err := env.Cluster.SetLoss(ctx, i, 0); err != nil {
			return Check{Detail: withContext("remove the loss of "+name, err).Error()}
		}
		return shapingRemoved(ctx, env, i, fmt.Sprintf("loss removed from %s (it dropped %s)", name, dropped(held)),
			func(s cluster.NetStats) bool { return s.LossPercent == 0 })
	}
	env.logf("nemesis: %s on %s", f.Name(), name)
	if err := env.Cluster.SetLoss(ctx, i, f.percent); err != nil {
		return a, withContext(f.Name()+" on "+name, err)
	}
	env.markEffect()
	ok, took, seen := within(ctx, env.verifyWithin(), 250*time.Millisecond, func(ctx context.Context) (bool, string) {
		s, err := env.Cluster.NetStats(ctx, i)
		switch {
		case err != nil:
			return false, err.Error()
		case s.LossPercent != f.percent:
			return false, fmt.Sprintf("%s has a loss of %v%% in force, not %v%%", name, s.LossPercent, f.percent)
		}
		return s.LossDropped > 0, fmt.Sprintf("%s dropped %s", name, dropped(s))
	})
	if ok {
		a.check = Check{OK: true, Detail: fmt.Sprintf("%s after %s", seen, secs(took))}
	} else {
		a.check = Check{Detail: fmt.Sprintf("%s not seen dropping within %s: %s", f.Name(), secs(took), seen)}
	}
	return a, nil
}

func dropped(s cluster.NetStats) string {
	share := 0.0
	if s.LossSeen > 0 {
		share = 100 * float64(s.LossDropped) / float64(s.LossSeen)
	}
	return fmt.Sprintf("%d of %d peer packets (%.1f%%)", s.LossDropped, s.LossSeen, share)
}

// bandwidth limits what one random node sends (tc tbf at the root of its
// interface, clients' replies included). Injecting checks the qdisc's
// statistics: a tbf at the asked rate is in force and traffic passes
// through it. Healing removes it and checks that it is gone and the node
// routes to every peer.
type bandwidth struct {
	rate uint64 // bytes per second
	text string // as given, e.g. 1mbit
}

func (f bandwidth) Name() string { return "bandwidth=" + f.text }

func (f bandwidth) Needs() []cluster.Capability { return []cluster.Capability{cluster.CapBandwidth} }

func (f bandwidth) Inject(ctx context.Context, env *Env) (Active, error) {
	n := len(env.nodes())
	if n == 0 {
		return nil, errors.New(f.Name() + ": the cluster has no nodes")
	}
	i := env.pickNode(n)
	name := env.name(i)
	a := &active{targets: []string{name}}
	a.heal = func(ctx context.Context) Check {
		held, _ := env.Cluster.NetStats(ctx, i)
		if err := env.Cluster.SetRate(ctx, i, 0); err != nil {
			return Check{Detail: withContext("remove the rate limit of "+name, err).Error()}
		}
		return shapingRemoved(ctx, env, i, fmt.Sprintf("rate limit removed from %s (%s)", name, throughput(held)),
			func(s cluster.NetStats) bool { return s.Rate == 0 })
	}
	env.logf("nemesis: %s on %s", f.Name(), name)
	if err := env.Cluster.SetRate(ctx, i, f.rate); err != nil {
		return a, withContext(f.Name()+" on "+name, err)
	}
	env.markEffect()
	var first *cluster.NetStats
	ok, took, seen := within(ctx, env.verifyWithin(), 250*time.Millisecond, func(ctx context.Context) (bool, string) {
		s, err := env.Cluster.NetStats(ctx, i)
		switch {
		case err != nil:
			return false, err.Error()
		case s.Rate != f.rate:
			return false, fmt.Sprintf("%s has a rate limit of %d bytes/s in force, not %d", name, s.Rate, f.rate)
		case first == nil:
			first = &s
			return false, fmt.Sprintf("%s: %s, waiting for more", name, throughput(s))
		}
		return s.RatePackets > first.RatePackets, fmt.Sprintf("%s at %d bytes/s: %s", name, f.rate, throughput(s))
	})
	if ok {
		a.check = Check{OK: true, Detail: fmt.Sprintf("%s after %s", seen, secs(took))}
	} else {
		a.check = Check{Detail: fmt.Sprintf("%s not seen passing traffic within %s: %s", f.Name(), secs(took), seen)}
	}
	return a, nil
}

func throughput(s cluster.NetStats) string {
	return fmt.Sprintf("%d bytes in %d packets through the tbf, %d over the rate, %d dropped", s.RateBytes, s.RatePackets, s.RateOverlimits, s.RateDrops)
}

// shapingRemoved waits until node i's counters say the shaping is gone and
// the node routes to every peer.
func shapingRemoved(ctx context.Context, env *Env, i int, what string, gone func(cluster.NetStats) bool) Check {
	ok, took, seen := within(ctx, env.verifyWithin(), 250*time.Millisecond, func(ctx context.Context) (bool, string) {
		s, err := env.Cluster.NetStats(ctx, i)
		switch {
		case err != nil:
			return false, err.Error()
		case !gone(s):
			return false, fmt.Sprintf("%s still shaped: %+v", env.name(i), s)
		}
		return env.routesFull(ctx, []int{i})
	})
	if !ok {
		return Check{Detail: fmt.Sprintf("%s; not seen undone within %s: %s", what, secs(took), seen)}
	}
	return Check{OK: true, Detail: fmt.Sprintf("%s; gone and routes full after %s", what, secs(took))}
}
