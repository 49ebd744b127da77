package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Script runs faults a workload injects at moments of its own choosing (the
// catch-up workload's kill, wipe and restart under a limit) rather than on
// the Schedule's clock. Each fault is a Window like any other: verified on
// inject and on heal, recorded in the history, listed in the results.
type Script struct {
	Env *Env
	Rec *history.Recorder // may be nil
	// HealWithin bounds an inject or a heal. Default 2 min.
	HealWithin time.Duration
	// OnChange, if set, hears the fault in effect ("" once healed), for the
	// live progress line.
	OnChange func(fault string)

	mu      sync.Mutex
	windows []Window
}

// Held is a scripted fault in effect.
type Held struct {
	s      *Script
	w      Window
	act    Active
	inject Check
}

// Inject applies f now and checks its effect. The returned Held must be
// healed (Heal) even when the error is set: an error only says the fault
// was not, or only partly, applied, and the window records that.
func (s *Script) Inject(ctx context.Context, f Fault) (*Held, error) {
	h := &Held{s: s}
	h.w, h.act, h.inject = injectWindow(ctx, s.Env, f, s.now, s.healWithin())
	s.changed(f.Name())
	if !h.w.Injected && h.act == nil {
		h.finish()
		return h, errors.New(h.w.Detail)
	}
	if !h.inject.OK {
		return h, errors.New(h.inject.Detail)
	}
	return h, nil
}

// Due announces that something the workload promised falls due at at (a
// TTL key's expiry, a schedule's time), so that faults aimed at due times
// (kill@due, partition-leader@due-1s) land on it. Without such a fault no
// watcher runs, and it does nothing.
func (s *Script) Due(at time.Time, what string) {
	if s != nil && s.Env != nil && s.Env.Watch != nil {
		s.Env.Watch.Announce(at, what)
	}
}

// Targets are the nodes the fault hit.
func (h *Held) Targets() []string { return h.w.Targets }

// Heal undoes the fault, checks that it is undone and records the window.
// Healing a fault that was never applied records it as not injected.
func (h *Held) Heal(ctx context.Context) Window {
	if h.act != nil {
		healWindow(ctx, &h.w, h.act, h.inject, h.s.now, h.s.healWithin())
		h.act = nil
		h.finish()
	}
	return h.w
}

func (h *Held) finish() {
	s := h.s
	s.mu.Lock()
	s.windows = append(s.windows, h.w)
	s.mu.Unlock()
	if s.Rec != nil {
		s.Rec.Add(h.w.Op())
	}
	s.changed("")
	s.Env.logf("nemesis: %s %s: verified=%v inject %s heal %s: %s", h.w.Fault, strings.Join(h.w.Targets, ","),
		h.w.Verified, secs(h.w.Inject), secs(h.w.Heal), h.w.Detail)
}

// Windows are the faults healed so far, in the order they were healed.
func (s *Script) Windows() []Window {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Window(nil), s.windows...)
}

func (s *Script) now() time.Duration {
	if s.Rec != nil {
		return time.Duration(s.Rec.Now())
	}
	return 0
}

func (s *Script) healWithin() time.Duration {
	if s.HealWithin > 0 {
		return s.HealWithin
	}
	return 2 * time.Minute
}

func (s *Script) changed(fault string) {
	if s.OnChange != nil {
		s.OnChange(fault)
	}
}

// injectWindow injects f, bounded by within even after ctx is cancelled, so
// a fault is never left half applied. It returns the window so far, the
// Active to heal (nil when nothing was applied) and what the inject check
// saw.
func injectWindow(ctx context.Context, env *Env, f Fault, now func() time.Duration, within time.Duration) (Window, Active, Check) {
	w := Window{Fault: f.Name(), Start: now()}
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), within)
	defer cancel()
	var effect effectMark
	env.effect = &effect
	t := time.Now()
	act, err := f.Inject(bctx, env)
	w.Inject = time.Since(t)
	env.effect = nil
	if !effect.at.IsZero() {
		w.Effect, w.Lag = now()-time.Since(effect.at), effect.lag
	}
	var inj Check
	switch {
	case act == nil && err == nil:
		err = errors.New("fault returned nothing")
		fallthrough
	case act == nil:
		w.Detail = "not injected: " + err.Error()
		w.End = now()
		return w, nil, Check{}
	case err != nil: // partly applied: what was applied is held and healed like the rest
		inj = Check{Detail: "injection failed: " + err.Error()}
		w.Injected = true
	default:
		inj = act.Check()
		w.Injected = true
	}
	w.Targets = act.Targets()
	return w, act, inj
}

// healWindow heals act and completes w.
func healWindow(ctx context.Context, w *Window, act Active, inj Check, now func() time.Duration, within time.Duration) {
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), within)
	defer cancel()
	t := time.Now()
	healed := act.Heal(hctx)
	w.Heal = time.Since(t)
	w.End = now()
	w.Verified = inj.OK && healed.OK
	w.Detail = fmt.Sprintf("inject: %s; heal: %s", verdict(inj), verdict(healed))
}
