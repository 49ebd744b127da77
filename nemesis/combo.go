package nemesis

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// combo injects several faults in one window, e.g. partition-leader+kill:
// Jepsen found its NATS bugs with such combinations. The parts are injected
// in order and healed together; each part verifies itself, and the window
// is verified only when every part is.
type combo []Fault

func (c combo) Name() string {
	names := make([]string, len(c))
	for i, f := range c {
		names[i] = f.Name()
	}
	return strings.Join(names, "+")
}

func (c combo) Needs() []cluster.Capability {
	var out []cluster.Capability
	for _, f := range c {
		out = append(out, f.Needs()...)
	}
	return out
}

func (c combo) Inject(ctx context.Context, env *Env) (Active, error) {
	var parts []Active
	var errs []error
	for _, f := range c {
		a, err := f.Inject(ctx, env)
		if a != nil {
			parts = append(parts, a)
		}
		if err != nil {
			errs = append(errs, withContext(f.Name(), err))
		}
	}
	if len(parts) == 0 {
		return nil, joinErrors(errs)
	}
	return comboActive(parts), joinErrors(errs)
}

// joinErrors joins in one line (errors.Join puts each on its own).
func joinErrors(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return errors.New(strings.Join(msgs, "; "))
}

type comboActive []Active

func (a comboActive) Targets() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range a {
		for _, t := range p.Targets() {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

func (a comboActive) Check() Check {
	checks := make([]Check, len(a))
	for i, p := range a {
		checks[i] = p.Check()
	}
	return joinChecks(checks)
}

// Heal undoes every part at once: each part's check waits for the whole
// cluster (a resumed node's routes to a node that is still cut off), so
// healing one after the other would fail checks that heal together.
func (a comboActive) Heal(ctx context.Context) Check {
	checks := make([]Check, len(a))
	var wg sync.WaitGroup
	for i, p := range a {
		wg.Add(1)
		go func() {
			defer wg.Done()
			checks[i] = p.Heal(ctx)
		}()
	}
	wg.Wait()
	return joinChecks(checks)
}

// joinChecks is one Check of several parts. Each part's detail carries
// its own verdict, so the whole is marked joined and verdict does not
// prefix it again ("NOT VERIFIED: NOT VERIFIED: ...").
func joinChecks(cs []Check) Check {
	out := Check{OK: true, joined: true}
	details := make([]string, len(cs))
	for i, c := range cs {
		out.OK = out.OK && c.OK
		details[i] = verdict(c)
	}
	out.Detail = strings.Join(details, " + ")
	return out
}
