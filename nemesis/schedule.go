package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/ctxtime"
	"github.com/jetstream-chaos/jetstream-chaos/watch"
)

// Schedule alternates quiet gaps and faults: wait Interval, inject a fault
// chosen by the seeded generator, hold it for Interval, heal it, again.
// Faults run one at a time; a list of several is a mix to choose from.
type Schedule struct {
	Faults   []Fault
	Interval time.Duration // a fault's duration and the quiet gap between faults
	Seed     uint64
	// HealWithin bounds a heal, and the final restore, once the run's
	// context is done. Default 2 min.
	HealWithin time.Duration
	// OnChange, if set, hears the fault in effect ("" once healed), for the
	// live progress line.
	OnChange func(fault string)
}

// Window is one fault as it happened, for the summary and results.json.
// Times are nanoseconds since the recorder's start, like history ops.
type Window struct {
	Fault    string        `json:"fault"`
	Targets  []string      `json:"targets,omitempty"`
	Start    time.Duration `json:"start_ns"`
	End      time.Duration `json:"end_ns"`
	Inject   time.Duration `json:"inject_ns"` // applying the fault until its effect was seen (or the check gave up)
	Heal     time.Duration `json:"heal_ns"`   // undoing it until the heal was seen (or the check gave up)
	Injected bool          `json:"injected"`  // the fault was applied, at least in part (false: refused or failed, nothing to hold)
	Verified bool          `json:"verified"`  // both the effect and the heal were seen
	Detail   string        `json:"detail,omitempty"`
	// Effect is when the fault took effect: its first control call that
	// changed the cluster returned (0: no such call was made).
	Effect time.Duration `json:"effect_ns,omitempty"`
	// Lag is each replica's lag behind the stream's leader, in raft
	// entries, as last polled when the fault took effect (runs that watch
	// the cluster).
	Lag map[string]uint64 `json:"lag,omitempty"`
	// Trigger is what a triggered window waited for; Event the event that
	// fired it (nil: it never fired, and nothing was injected).
	Trigger string       `json:"trigger,omitempty"`
	Event   *watch.Event `json:"event,omitempty"`
}

// EventToEffect is how long after its event a triggered window's fault
// took effect (its delay included); ok is false for other windows.
func (w Window) EventToEffect() (time.Duration, bool) {
	if w.Event == nil || w.Effect == 0 {
		return 0, false
	}
	return w.Effect - w.Event.At, true
}

// NeverFired says the window stands for a trigger that no event fired
// while it was armed (Start to End): nothing was injected.
func (w Window) NeverFired() bool {
	return w.Trigger != "" && w.Event == nil && strings.HasPrefix(w.Detail, "never fired")
}

// Streams of the seeded generator: one picks faults, window i's targets
// come from stream i+1, so a fault that draws more or fewer numbers never
// shifts the choices of later windows.
const pickStream = 0

// rngFor is window i's generator.
func (s Schedule) rngFor(i int) *rand.Rand { return rand.New(rand.NewPCG(s.Seed, uint64(i)+1)) }

func (s Schedule) healWithin() time.Duration {
	if s.HealWithin > 0 {
		return s.HealWithin
	}
	return 2 * time.Minute
}

// Run injects faults until ctx is done, then heals the fault in effect and
// restores everything (Restore). Clock faults take turns, one window at a
// time; each triggered fault (Triggered) is armed beside them and fires
// when its event comes (env.Watch must be set). It records one history op
// per window in rec (which may be nil) and returns the windows in order of
// their start. With no faults it returns at once. Call WaitRecovered
// afterwards.
func (s Schedule) Run(ctx context.Context, env *Env, rec *history.Recorder) []Window {
	if len(s.Faults) == 0 {
		return nil
	}
	t0 := time.Now()
	now := func() time.Duration {
		if rec != nil {
			return time.Duration(rec.Now())
		}
		return time.Since(t0)
	}
	var mu sync.Mutex
	var out []Window
	record := func(w Window) {
		mu.Lock()
		out = append(out, w)
		mu.Unlock()
		if rec != nil {
			rec.Add(w.Op())
		}
		env.logf("nemesis: %s %s: verified=%v inject %s heal %s: %s", w.Fault, strings.Join(w.Targets, ","), w.Verified, secs(w.Inject), secs(w.Heal), w.Detail)
	}
	clock, armed := splitTriggered(s.Faults)
	var wg sync.WaitGroup
	for k, t := range armed {
		wg.Go(func() { s.runArmed(ctx, env, k, t, now, record) })
	}
	s.runClock(ctx, env, clock, now, record)
	wg.Wait()
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.healWithin())
	defer cancel()
	if err := Restore(hctx, env); err != nil {
		env.logf("nemesis: final restore: %v", err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// runClock runs the clock's windows until ctx is done: a quiet gap, a
// fault the seed picks, held for Interval, healed. With none it waits.
func (s Schedule) runClock(ctx context.Context, env *Env, faults []Fault, now func() time.Duration, record func(Window)) {
	if len(faults) == 0 {
		<-ctx.Done()
		return
	}
	pick := rand.New(rand.NewPCG(s.Seed, pickStream))
	for i := 0; ctxtime.Sleep(ctx, s.Interval); i++ {
		f := faults[pick.IntN(len(faults))]
		wenv := *env
		wenv.Rand = s.rngFor(i)
		record(s.window(ctx, &wenv, f, now))
	}
}

// splitTriggered separates the clock's faults from the triggered ones.
func splitTriggered(faults []Fault) (clock []Fault, armed []Triggered) {
	for _, f := range faults {
		if t, ok := f.(Triggered); ok {
			armed = append(armed, t)
		} else {
			clock = append(clock, f)
		}
	}
	return clock, armed
}

// window injects f, holds it until Interval passes or ctx is done, and
// heals it. Injecting and healing ignore ctx's cancellation (bounded by
// HealWithin), so a fault is never left half applied.
func (s Schedule) window(ctx context.Context, env *Env, f Fault, now func() time.Duration) Window {
	w, act, inj := injectWindow(ctx, env, f, now, s.healWithin())
	if act == nil {
		return w
	}
	s.changed(f.Name())
	defer s.changed("")
	ctxtime.Sleep(ctx, s.Interval)
	healWindow(ctx, &w, act, inj, now, s.healWithin())
	return w
}

func (s Schedule) changed(fault string) {
	if s.OnChange != nil {
		s.OnChange(fault)
	}
}

// verdict is a check's detail, marked when it is not verified. A joined
// check's parts are marked already.
func verdict(c Check) string {
	if c.OK || c.joined {
		return c.Detail
	}
	return "NOT VERIFIED: " + c.Detail
}

// Op is the window's history record: Invoke at injection, Complete after
// the heal. Outcome is ok when verified, info when applied but not fully
// verified, fail when nothing was applied.
func (w Window) Op() history.Op {
	v := w.Verified
	op := history.Op{
		Client:   history.NemesisClient,
		Type:     history.Fault,
		Fault:    w.Fault,
		Targets:  w.Targets,
		Verified: &v,
		Detail:   w.Detail,
		Invoke:   int64(w.Start),
		Complete: int64(w.End),
		Outcome:  history.Info,
	}
	switch {
	case !w.Injected:
		op.Outcome = history.Fail
	case w.Verified:
		op.Outcome = history.OK
	}
	return op
}

// Restore undoes every fault a runtime can leave behind, whatever caused
// it: resumes paused nodes, starts nodes that are not running, removes
// partitions, loss, rate limits and delay. What cannot be undone (a wiped
// or corrupted store, a replaced member) stays. It returns what it could not do, in one
// line; it does not wait for recovery (see WaitRecovered).
func Restore(ctx context.Context, env *Env) error {
	c := env.Cluster
	var errs []string
	for i := range c.Nodes() {
		st, err := c.State(ctx, i)
		if err != nil {
			errs = append(errs, fmt.Sprintf("state %s: %v", env.name(i), err))
			continue
		}
		if st.Paused {
			if err := c.Resume(ctx, i); err != nil {
				errs = append(errs, withContext("resume "+env.name(i), err).Error())
			}
		}
		if !st.Running {
			if err := c.Start(ctx, i); err != nil {
				errs = append(errs, withContext("start "+env.name(i), err).Error())
			}
		}
		if c.Supports(cluster.CapLoss) == nil {
			if err := c.SetLoss(ctx, i, 0); err != nil {
				errs = append(errs, withContext("remove the loss of "+env.name(i), err).Error())
			}
		}
		if c.Supports(cluster.CapBandwidth) == nil {
			if err := c.SetRate(ctx, i, 0); err != nil {
				errs = append(errs, withContext("remove the rate limit of "+env.name(i), err).Error())
			}
		}
		if d, ok := c.(Delayer); ok && c.Supports(cluster.CapLatency) == nil {
			if err := d.SetDelay(ctx, i, 0); err != nil {
				errs = append(errs, withContext("remove the delay of "+env.name(i), err).Error())
			}
		}
	}
	if c.Supports(cluster.CapPartition) == nil {
		if err := c.Heal(ctx); err != nil {
			errs = append(errs, "heal partitions: "+err.Error())
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}
