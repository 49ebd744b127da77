package nemesis

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

type crashKind int

const (
	crashMajority   crashKind = iota // SIGKILL a random majority
	crashAll                         // SIGKILL every node
	crashRestartAll                  // graceful stop of every node
)

// crash stops several nodes at the same instant: the controls are called
// together from one goroutine each, released at once. Injecting checks
// that every target is down (the runtime says so and its monitor port
// refuses); healing starts them all together and checks that each is back
// with routes to every peer. A cluster that does not come back fails the
// heal's check within VerifyWithin, and WaitRecovered reports it: not
// recovering is a result.
type crash struct{ kind crashKind }

func (c crash) Name() string {
	return [...]string{"kill-majority", "kill-all", "restart-all"}[c.kind]
}

func (c crash) Needs() []cluster.Capability {
	if c.kind == crashRestartAll {
		return []cluster.Capability{cluster.CapStop}
	}
	return []cluster.Capability{cluster.CapKill}
}

func (c crash) Inject(ctx context.Context, env *Env) (Active, error) {
	n := len(env.nodes())
	if n == 0 {
		return nil, fmt.Errorf("%s: the cluster has no nodes", c.Name())
	}
	targets := env.rng().Perm(n)
	if c.kind == crashMajority {
		targets = targets[:n/2+1]
	}
	slices.Sort(targets)
	a := &active{targets: env.names(targets)}
	a.heal = func(ctx context.Context) Check { return startAll(ctx, env, targets) }
	control, verb := env.Cluster.Kill, "kill"
	if c.kind == crashRestartAll {
		control, verb = env.Cluster.Stop, "stop"
	}
	env.logf("nemesis: %s %s", c.Name(), strings.Join(a.targets, " "))
	called := time.Now()
	spread, errs := together(ctx, targets, func(ctx context.Context, i int) error {
		return withContext(verb+" "+env.name(i), control(ctx, i))
	})
	env.markEnded(ctx, called, targets...)
	if len(errs) > 0 {
		return a, joinErrors(errs)
	}
	checks := eachNode(targets, func(i int) Check {
		ok, took, seen := within(ctx, env.verifyWithin(), 100*time.Millisecond, func(ctx context.Context) (bool, string) {
			return env.down(ctx, i)
		})
		if !ok {
			return Check{Detail: fmt.Sprintf("%s not down within %s: %s", env.name(i), secs(took), seen)}
		}
		return Check{OK: true, Detail: fmt.Sprintf("%s after %s", seen, secs(took))}
	})
	a.check = joinChecks(append([]Check{{OK: true, Detail: fmt.Sprintf("%d nodes %s within %.1fms", len(targets), pastTense(verb), float64(spread.Microseconds())/1000)}}, checks...))
	return a, nil
}

func pastTense(verb string) string {
	if verb == "stop" {
		return "stopped"
	}
	return verb + "ed"
}

// together calls f for every node at once and returns how far apart the
// calls returned, and their errors.
func together(ctx context.Context, idx []int, f func(context.Context, int) error) (time.Duration, []error) {
	start := make(chan struct{})
	done := make([]time.Time, len(idx))
	errs := make([]error, len(idx))
	var wg sync.WaitGroup
	for k, i := range idx {
		wg.Go(func() {
			<-start
			errs[k] = f(ctx, i)
			done[k] = time.Now()
		})
	}
	close(start)
	wg.Wait()
	first, last := slices.MinFunc(done, time.Time.Compare), slices.MaxFunc(done, time.Time.Compare)
	return last.Sub(first), slices.DeleteFunc(errs, func(err error) bool { return err == nil })
}

// eachNode runs check for every node concurrently, results in idx order.
func eachNode(idx []int, check func(i int) Check) []Check {
	out := make([]Check, len(idx))
	var wg sync.WaitGroup
	for k, i := range idx {
		wg.Go(func() { out[k] = check(i) })
	}
	wg.Wait()
	return out
}

// startAll starts every target at once and waits until each is up: a node
// alone cannot show full routes before the others run.
func startAll(ctx context.Context, env *Env, idx []int) Check {
	return joinChecks(eachNode(idx, func(i int) Check { return startAgain(ctx, env, i) }))
}

// pauseKill freezes one random node, checks it is frozen, then SIGKILLs the
// same node and checks it is down: a process that dies while the cluster
// already saw it hang. (A pause+kill combination picks its nodes apart and
// may or may not hit the same one.) Healing starts it again.
type pauseKill struct{}

func (pauseKill) Name() string { return "pause-kill" }

func (pauseKill) Needs() []cluster.Capability {
	return []cluster.Capability{cluster.CapPause, cluster.CapKill}
}

func (pauseKill) Inject(ctx context.Context, env *Env) (Active, error) {
	n := len(env.nodes())
	if n == 0 {
		return nil, fmt.Errorf("pause-kill: the cluster has no nodes")
	}
	i := env.pickNode(n)
	name := env.name(i)
	a := &active{targets: []string{name}}
	a.heal = func(ctx context.Context) Check { return startAgain(ctx, env, i) }
	env.logf("nemesis: pause-kill %s", name)
	if err := env.Cluster.Pause(ctx, i); err != nil {
		a.heal = func(ctx context.Context) Check { return resume(ctx, env, i) }
		return a, withContext("pause "+name, err)
	}
	env.markEffect()
	ok, took, seen := within(ctx, env.verifyWithin(), 100*time.Millisecond, func(ctx context.Context) (bool, string) {
		return env.frozen(ctx, i)
	})
	paused := Check{OK: ok, Detail: fmt.Sprintf("%s after %s", seen, secs(took))}
	if !ok {
		paused.Detail = fmt.Sprintf("%s not seen paused within %s: %s", name, secs(took), seen)
	}
	if err := env.Cluster.Kill(ctx, i); err != nil {
		a.check = paused
		return a, withContext("kill "+name, err)
	}
	ok, took, seen = within(ctx, env.verifyWithin(), 100*time.Millisecond, func(ctx context.Context) (bool, string) {
		return env.down(ctx, i)
	})
	killed := Check{OK: ok, Detail: fmt.Sprintf("then killed: %s after %s", seen, secs(took))}
	if !ok {
		killed.Detail = fmt.Sprintf("then killed, but not down within %s: %s", secs(took), seen)
	}
	a.check = joinChecks([]Check{paused, killed})
	return a, nil
}
