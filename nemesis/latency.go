package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Shaper is implemented by a Cluster that can delay or drop a node's
// packets (tc netem or the like). cluster.Cluster has no such control yet:
// both runtimes refuse CapLatency and CapLoss (this machine's kernel has no
// sch_netem), so Refuse stops latency and loss before a run. A runtime that
// gains them implements Shaper and answers Supports with nil.
type Shaper interface {
	// Shape delays every packet node sends by delay and drops loss percent
	// of them; zero values leave that part off.
	Shape(ctx context.Context, node int, delay time.Duration, loss float64) error
	// Unshape removes the node's shaping.
	Unshape(ctx context.Context, node int) error
}

// netem slows (latency) or drops (loss) one random node's packets. latency
// checks that the node's route round-trip times, which the server refreshes
// on every route ping, reach the delay. Loss has no effect the monitoring
// endpoints show for certain, so it is recorded unverified.
type netem struct {
	delay time.Duration
	loss  float64 // percent
}

func (f netem) Name() string {
	if f.delay > 0 {
		return "latency=" + f.delay.String()
	}
	return "loss=" + strconv.FormatFloat(f.loss, 'f', -1, 64) + "%"
}

func (f netem) Needs() []cluster.Capability {
	if f.delay > 0 {
		return []cluster.Capability{cluster.CapLatency}
	}
	return []cluster.Capability{cluster.CapLoss}
}

func (f netem) Inject(ctx context.Context, env *Env) (Active, error) {
	for _, c := range f.Needs() {
		if err := env.Cluster.Supports(c); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name(), err)
		}
	}
	sh, ok := env.Cluster.(Shaper)
	if !ok {
		return nil, fmt.Errorf("%s: %w: the %s runtime has no network shaping control", f.Name(), cluster.ErrUnsupported, env.Cluster.Runtime())
	}
	n := len(env.nodes())
	if n == 0 {
		return nil, errors.New(f.Name() + ": the cluster has no nodes")
	}
	i := env.rng().IntN(n)
	name := env.name(i)
	a := &active{targets: []string{name}}
	a.heal = func(ctx context.Context) Check {
		if err := sh.Unshape(ctx, i); err != nil {
			return Check{Detail: fmt.Sprintf("unshape %s: %v", name, err)}
		}
		if f.delay == 0 {
			return Check{OK: true, Detail: "shaping removed (loss is not observable)"}
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
	if err := sh.Shape(ctx, i, f.delay, f.loss); err != nil {
		return a, fmt.Errorf("%s on %s: %w", f.Name(), name, err)
	}
	if f.delay == 0 {
		a.check = Check{Detail: fmt.Sprintf("%s%% loss set on %s; loss is not observable from monitoring", strconv.FormatFloat(f.loss, 'f', -1, 64), name)}
		return a, nil
	}
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
	var r struct {
		Routes []struct {
			RTT string `json:"rtt"`
		} `json:"routes"`
	}
	if err := e.getJSON(ctx, e.nodes()[i], "/routez", &r); err != nil {
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
