package nemesis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/internal/ctxtime"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
)

// armedStream is the first seeded stream of the triggered windows: armed
// fault k's window i draws from armedStream + k<<20 + i, apart from the
// clock's streams.
const armedStream = 1 << 40

// runArmed waits for t's event, injects t's fault after its delay, holds
// it for Interval, heals it, and arms it again after a quiet Interval, until
// ctx is done. Events that came while a window was open or quiet do not
// fire it. A trigger that never fires is recorded as a window that was not
// injected, saying so.
func (s Schedule) runArmed(ctx context.Context, env *Env, k int, t Triggered, now func() time.Duration, record func(Window)) {
	if env.Watch == nil {
		record(Window{Fault: t.Name(), Trigger: t.Trigger.String(), Start: now(), End: now(),
			Detail: "not injected: the run does not watch the cluster's events (a harness error)"})
		return
	}
	armedAt := now()
	mark := env.Watch.Mark()
	for i := 0; ; i++ {
		e, _, err := env.Watch.Next(ctx, mark, t.Trigger.Matches)
		if err != nil {
			if i == 0 {
				record(Window{Fault: t.Name(), Trigger: t.Trigger.String(), Start: armedAt, End: now(),
					Detail: fmt.Sprintf("never fired: no %s event in the %s the trigger was armed", t.Trigger, secs(now()-armedAt))})
			}
			return
		}
		if wait := t.wait(e, now()); wait > 0 && !ctxtime.Sleep(ctx, wait) {
			record(Window{Fault: t.Name(), Trigger: t.Trigger.String(), Event: &e, Start: now(), End: now(),
				Detail: fmt.Sprintf("not injected: the run ended within the %s wait after %s", wait, e.String())})
			return
		}
		wenv := *env
		wenv.Rand = rand.New(rand.NewPCG(s.Seed, armedStream+uint64(k)<<20+uint64(i)))
		wenv.event = &e
		w := s.window(ctx, &wenv, t, now)
		w.Trigger, w.Event = t.Trigger.String(), &e
		w.Detail = "fired by " + e.String() + aimedAt(e, w.Start) + "; " + w.Detail
		record(w)
		if !ctxtime.Sleep(ctx, s.Interval) {
			return
		}
		mark = env.Watch.Mark()
	}
}

// wait is how long after now the fault goes in: the trigger's delay after
// its event, or for a due time its delay from that time (negative: before).
func (t Triggered) wait(e watch.Event, now time.Duration) time.Duration {
	if t.Trigger.Kind == watch.Due {
		return e.Due + t.Trigger.Delay - now
	}
	return t.Trigger.Delay
}

// aimedAt says where a fault fired by a due time began against that time,
// so the report shows it landed on purpose: " (injected 0.98s before it)".
func aimedAt(e watch.Event, start time.Duration) string {
	if e.Kind != watch.Due {
		return ""
	}
	if d := e.Due - start; d >= 0 {
		return fmt.Sprintf(" (injected %.3fs before it)", d.Seconds())
	}
	return fmt.Sprintf(" (injected %.3fs after it)", (start - e.Due).Seconds())
}
