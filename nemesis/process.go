package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

type procKind int

const (
	procKill    procKind = iota // SIGKILL, start again at heal
	procRestart                 // graceful stop, start again at heal
	procPause                   // freeze, resume at heal
)

// process stops or freezes one random node. kill and restart check that
// the runtime reports the node not running and that its monitor port
// refuses; pause checks that the runtime reports it paused and that a
// monitor request times out. Healing starts or resumes it and checks that it
// runs and has routes to every peer.
type process struct{ kind procKind }

func (p process) Name() string { return [...]string{"kill", "restart", "pause"}[p.kind] }

func (p process) Needs() []cluster.Capability {
	return []cluster.Capability{[...]cluster.Capability{cluster.CapKill, cluster.CapStop, cluster.CapPause}[p.kind]}
}

func (p process) Inject(ctx context.Context, env *Env) (Active, error) {
	n := len(env.nodes())
	if n == 0 {
		return nil, fmt.Errorf("%s: the cluster has no nodes", p.Name())
	}
	i := env.pickNode(n)
	name := env.name(i)
	a := &active{targets: []string{name}}
	env.logf("nemesis: %s %s", p.Name(), name)
	var err error
	var verify func(context.Context) (bool, string)
	called := time.Now()
	switch p.kind {
	case procKill:
		err, verify = env.Cluster.Kill(ctx, i), func(ctx context.Context) (bool, string) { return env.down(ctx, i) }
		a.heal = func(ctx context.Context) Check { return startAgain(ctx, env, i) }
	case procRestart:
		err, verify = env.Cluster.Stop(ctx, i), func(ctx context.Context) (bool, string) { return env.down(ctx, i) }
		a.heal = func(ctx context.Context) Check { return startAgain(ctx, env, i) }
	case procPause:
		err, verify = env.Cluster.Pause(ctx, i), func(ctx context.Context) (bool, string) { return env.frozen(ctx, i) }
		a.heal = func(ctx context.Context) Check { return resume(ctx, env, i) }
	}
	if err != nil {
		return a, withContext(p.Name()+" "+name, err)
	}
	if p.kind == procPause {
		env.markEffect()
	} else {
		env.markEnded(ctx, called, i)
	}
	ok, took, seen := within(ctx, env.verifyWithin(), 100*time.Millisecond, verify)
	if ok {
		a.check = Check{OK: true, Detail: fmt.Sprintf("%s after %s", seen, secs(took))}
	} else {
		a.check = Check{Detail: fmt.Sprintf("%s %s not verified within %s: %s", p.Name(), name, secs(took), seen)}
	}
	return a, nil
}

// startAgain starts node i if it is not running and waits until it is up.
func startAgain(ctx context.Context, env *Env, i int) Check {
	st, err := env.Cluster.State(ctx, i)
	if err != nil || !st.Running {
		if err := env.Cluster.Start(ctx, i); err != nil {
			return Check{Detail: withContext("start "+env.name(i), err).Error()}
		}
	}
	return waitUp(ctx, env, i)
}

func resume(ctx context.Context, env *Env, i int) Check {
	// In a combination (pause+kill) another part may have ended the paused
	// process: its pause is no longer in effect, and what is left to see is
	// the node back, which that part's heal brings.
	if st, err := env.Cluster.State(ctx, i); err == nil && !st.Paused {
		c := waitUp(ctx, env, i)
		c.Detail = env.name(i) + " no longer paused (another fault of the window ended its process); " + c.Detail
		return c
	}
	if err := env.Cluster.Resume(ctx, i); err != nil {
		return Check{Detail: withContext("resume "+env.name(i), err).Error()}
	}
	return waitUp(ctx, env, i)
}

func waitUp(ctx context.Context, env *Env, i int) Check {
	ok, took, seen := within(ctx, env.verifyWithin(), 100*time.Millisecond, func(ctx context.Context) (bool, string) {
		return env.up(ctx, i)
	})
	if !ok {
		return Check{Detail: fmt.Sprintf("%s not back within %s: %s", env.name(i), secs(took), seen)}
	}
	return Check{OK: true, Detail: fmt.Sprintf("%s back with full routes after %s", env.name(i), secs(took))}
}
