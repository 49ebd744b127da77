package nemesis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Delayer is implemented by a Cluster that can delay a node's packets (tc
// netem). cluster.Cluster has no such control: both runtimes refuse
// CapLatency (this machine's kernel has no sch_netem), so Refuse stops
// latency before a run. A runtime that gains it implements Delayer and
// answers Supports with nil.
type Delayer interface {
	// SetDelay delays every packet node sends by d; 0 removes it.
	SetDelay(ctx context.Context, node int, d time.Duration) error
}

// latency slows one random node's packets and checks that the node's route
// round-trip times, which the server refreshes on every route ping, reach
// the delay.
type latency struct{ delay time.Duration }

func (f latency) Name() string { return "latency=" + f.delay.String() }

func (f latency) Needs() []cluster.Capability { return []cluster.Capability{cluster.CapLatency} }

func (f latency) Inject(ctx context.Context, env *Env) (Active, error) {
	for _, c := range f.Needs() {
		if err := env.Cluster.Supports(c); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name(), err)
		}
	}
	sh, ok := env.Cluster.(Delayer)
	if !ok {
		return nil, fmt.Errorf("%s: %w: the %s runtime has no delay control", f.Name(), cluster.ErrUnsupported, env.Cluster.Runtime())
	}
	n := len(env.nodes())
	if n == 0 {
		return nil, errors.New(f.Name() + ": the cluster has no nodes")
	}
	i := env.pickNode(n)
	name := env.name(i)
	a := &active{targets: []string{name}}
	a.heal = func(ctx context.Context) Check {
		if err := sh.SetDelay(ctx, i, 0); err != nil {
			return Check{Detail: withContext("remove the delay of "+name, err).Error()}
		}
		ok, took, seen := within(ctx, env.verifyWithin(), 250*time.Millisecond, func(ctx context.Context) (bool, string) {
			rtt, err := env.maxRouteRTT(ctx, i)
			if err != nil {
				return false, err.Error()
			}
			return rtt < f.delay/2, fmt.Sprintf("%s route rtt %s", name, rtt)
		})
		if !ok {
			return Check{Detail: fmt.Sprintf("latency still seen after %s: %s", secs(took), seen)}
		}
		return Check{OK: true, Detail: fmt.Sprintf("%s after %s", seen, secs(took))}
	}
	env.logf("nemesis: %s on %s", f.Name(), name)
	if err := sh.SetDelay(ctx, i, f.delay); err != nil {
		return a, withContext(f.Name()+" on "+name, err)
	}
	env.markEffect()
	ok, took, seen := within(ctx, env.verifyWithin(), 250*time.Millisecond, func(ctx context.Context) (bool, string) {
		rtt, err := env.maxRouteRTT(ctx, i)
		if err != nil {
			return false, err.Error()
		}
		return rtt >= f.delay, fmt.Sprintf("%s route rtt %s", name, rtt)
	})
	if ok {
		a.check = Check{OK: true, Detail: fmt.Sprintf("%s after %s", seen, secs(took))}
	} else {
		a.check = Check{Detail: fmt.Sprintf("latency %s not seen within %s: %s", f.delay, secs(took), seen)}
	}
	return a, nil
}

// maxRouteRTT is the largest round-trip time node i reports for its routes.
func (e *Env) maxRouteRTT(ctx context.Context, i int) (time.Duration, error) {
	r, err := e.monitor().Routez(ctx, e.nodes()[i])
	if err != nil {
		return 0, err
	}
	var max time.Duration
	for _, rt := range r.Routes {
		if d, err := time.ParseDuration(rt.RTT); err == nil && d > max {
			max = d
		}
	}
	return max, nil
}
