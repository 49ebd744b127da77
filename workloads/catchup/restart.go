package catchup

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/client"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/internal/ctxtime"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// takeDown injects the catch-up fault on the target (kill, wipe its store
// as a new volume, put its memory limit on) and keeps publishing for --down.
func (r *cell) takeDown(ctx context.Context, faults *nemesis.Script) error {
	o := r.opts
	if l, err := client.StreamLeader(ctx, r.js, o.Stream, infoTimeout); err == nil {
		if o.Target == Leader && r.index(l) >= 0 && r.index(l) != r.target { // it moved during the fill
			r.note("the stream leader moved to %s during the fill; targeting it", l)
			r.target, r.res.Target = r.index(l), l
		}
		r.res.LeaderAtKill = l
	}
	name := r.res.Target
	r.phase(PhaseDown)
	r.event(r.target, EvKill, "")
	killed := time.Now()
	held, err := faults.Inject(ctx, nemesis.Rebuild{Node: r.target, MemoryLimit: int64(o.MemoryLimit)})
	r.held = held
	if err != nil {
		return fmt.Errorf("catch-up fault on %s: %w", name, err)
	}
	r.event(r.target, EvWipe, "store deleted, as a new volume")
	limit := ""
	if o.MemoryLimit > 0 {
		r.event(r.target, EvLimit, o.MemoryLimit.String())
		r.obs.Limit(r.target, int64(o.MemoryLimit))
		limit = ", memory limit " + o.MemoryLimit.String() + " set"
	}
	r.logf("%s killed and wiped%s; publishing %s/s for %s", name, limit, o.Rate, o.Down)
	if !ctxtime.Sleep(ctx, time.Until(killed.Add(o.Down))) {
		return ctx.Err()
	}
	return nil
}

// restart starts the target and the reader on it.
func (r *cell) restart(ctx context.Context) error {
	// The stream's size now is what the target must catch up: from the
	// observer's readings, as asking the leader could hold the restart up
	// for seconds while a killed leader's successor is elected.
	if l, ok := r.leaderView(); ok && l.Stream.Bytes > 0 {
		r.res.Stream.RestartMsgs, r.res.Stream.RestartBytes = l.Stream.Msgs, l.Stream.Bytes
	}
	r.res.CatchUp.RestartAtMs = r.now()
	r.ackedAtRestart = r.fleet.stats.ackedBytes()
	r.event(r.target, EvStart, "")
	w := r.held.Heal(ctx) // the fault's heal: start it, check it runs with routes
	if !w.Injected {
		return fmt.Errorf("start %s: %s", r.res.Target, w.Detail)
	}
	st0, err := r.c.State(ctx, r.target)
	if err != nil || !st0.Running {
		return fmt.Errorf("start %s: not running after the heal: %s", r.res.Target, w.Detail)
	}
	if r.res.Stream.RestartBytes == 0 { // no view yet: ask now, after the start
		for range 10 {
			if info, err := r.streamInfo(ctx); err == nil {
				r.res.Stream.RestartMsgs, r.res.Stream.RestartBytes = info.State.Msgs, info.State.Bytes
				break
			}
		}
	}
	st, err := r.c.State(ctx, r.target)
	if err != nil {
		return fmt.Errorf("state of %s: %w", r.res.Target, err)
	}
	r.base = st
	r.logf("%s restarted empty; %s to catch up (%d msgs); waiting until current (bound %s)",
		r.res.Target, bytesize.Bytes(r.res.Stream.RestartBytes), r.res.Stream.RestartMsgs, r.opts.CatchupTimeout)
	if r.opts.WriteFor > 0 && r.opts.Rate > 0 {
		// The timer calls the captured stop, never r.liveStop, which this
		// goroutine reassigns.
		stop := r.liveStop
		t := time.AfterFunc(r.opts.WriteFor, stop)
		r.liveStop = func() { t.Stop(); stop() }
	}
	if r.opts.ReadRate > 0 {
		if err := r.startReader(ctx); err != nil {
			r.note("reader not started: %v", err)
		}
	}
	return nil
}

// waitCurrent waits until the target is current (then settles), the bound
// passes, it is in a crash loop, or it is down for good.
func (r *cell) waitCurrent(ctx context.Context) {
	o := r.opts
	cu := &r.res.CatchUp
	deadline := r.t0.Add(time.Duration(cu.RestartAtMs)*time.Millisecond + o.CatchupTimeout)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	lastStatus := time.Now()
	seen := int64(-1) // the latest reading of the target's copy taken into account
	var downSince time.Time
	for {
		select {
		case <-ctx.Done():
			r.endCatchup(OutcomeInterrupted, "interrupted while catching up")
			return
		case <-tick.C:
		}
		if cur, ok := r.lagNow(); ok && cur.TMs > seen {
			seen = cur.TMs
			prev := r.lagBefore(cur)
			r.track(cur, prev)
			if cu.CurrentAtMs > 0 {
				r.endCatchup(OutcomeCurrent, fmt.Sprintf("holds last seq %d, the leader had %d; /healthz OK", cur.TargetLastSeq, prev.LeaderLastSeq))
				r.logf("%s current after %.1fs", r.res.Target, cu.Seconds)
				r.settle(ctx)
				return
			}
		}
		st := r.lastState()
		if restarts := st.Restarts - r.base.Restarts; restarts >= o.CrashLoop {
			r.endCatchup(OutcomeCrashLoop, fmt.Sprintf("%s restarted by the runtime %d times (%d OOM kills) since its restart", r.res.Target, restarts, st.OOMKills-r.base.OOMKills))
			r.logf("crash loop: %s; giving up the wait", cu.Detail)
			r.stopLive()
			ctxtime.Sleep(ctx, 5*time.Second) // the observer catches a few more restarts for the record
			return
		}
		if !st.Running && !st.StartedAt.IsZero() {
			if downSince.IsZero() {
				downSince = time.Now()
			}
			if !r.c.Config().AutoRestart && time.Since(downSince) > 5*time.Second {
				r.endCatchup(OutcomeDown, fmt.Sprintf("%s died (exit %d, OOM killed %v) and nothing restarts it", r.res.Target, st.ExitCode, st.OOMKilled))
				r.logf("%s", cu.Detail)
				return
			}
		} else {
			downSince = time.Time{}
		}
		if time.Now().After(deadline) {
			cur, _ := r.lagNow()
			r.endCatchup(OutcomeTimeout, fmt.Sprintf("after %s: %d msgs behind the leader, /healthz: %s", o.CatchupTimeout, cur.Behind, cmp.Or(cur.TargetHealth, "OK")))
			r.logf("not current within %s: %s", o.CatchupTimeout, cu.Detail)
			return
		}
		if time.Since(lastStatus) >= 5*time.Second {
			lastStatus = time.Now()
			r.status(st)
		}
	}
}

// lastState is what the runtime last said of the target; a failed reading
// leaves the one before.
func (r *cell) lastState() cluster.NodeState {
	if s, ok := r.obs.Latest(observe.KindState, r.target); ok && s.State != nil {
		r.stateSeen = *s.State
	}
	return r.stateSeen
}

// track updates the catch-up milestones from a new lag sample.
func (r *cell) track(cur, prev LagSample) {
	cu := &r.res.CatchUp
	if cur.TargetHas && cu.FirstSeenAtMs == 0 {
		cu.FirstSeenAtMs = cur.TMs
	}
	// Only while the target answers with its copy: a node that is down or
	// still loading its store says nothing about how far behind it is.
	if cur.TargetHas && cur.TMs >= cu.RestartAtMs {
		cu.MaxBehind = max(cu.MaxBehind, cur.Behind)
	}
	// Caught up on data: the target holds what the leader held half a
	// second earlier (prev; see lagBefore).
	ref := prev.LeaderLastSeq
	if ref == 0 {
		ref = cur.LeaderLastSeq
	}
	data := cur.TargetHas && ref > 0 && cur.TargetLastSeq >= ref
	if data && cu.DataAtMs == 0 {
		cu.DataAtMs = cur.TMs
	}
	if data && cur.TargetHealthy && cu.CurrentAtMs == 0 {
		cu.CurrentAtMs = cur.TMs
	}
}

// endCatchup ends the wait with its outcome.
func (r *cell) endCatchup(outcome, detail string) {
	cu := &r.res.CatchUp
	cu.Outcome, cu.Detail, cu.Completed = outcome, detail, outcome == OutcomeCurrent
	end := r.now()
	if cu.Completed {
		end = cu.CurrentAtMs
	}
	cu.Seconds = float64(end-cu.RestartAtMs) / 1000
	cu.PublishedBytes = r.fleet.stats.ackedBytes() - r.ackedAtRestart
}

// settle publishes until --write-for is over and watches --settle more: the
// report's jump came right after the catch-up ended.
func (r *cell) settle(ctx context.Context) {
	o := r.opts
	r.phase(PhaseSettle)
	if o.WriteFor == 0 {
		r.stopLive()
	}
	restart := r.t0.Add(time.Duration(r.res.CatchUp.RestartAtMs) * time.Millisecond)
	writesEnd := restart.Add(o.WriteFor)
	if o.WriteFor > 0 && time.Now().Before(writesEnd) {
		r.logf("publishing goes on until %s after the restart", o.WriteFor)
		if !r.watchUntil(ctx, writesEnd) {
			return
		}
		r.stopLive()
	}
	r.logf("watching %s more", o.Settle)
	r.watchUntil(ctx, time.Now().Add(o.Settle))
}

// watchUntil waits until t, printing status; false when a crash loop or
// ctx stopped it early.
func (r *cell) watchUntil(ctx context.Context, t time.Time) bool {
	last := time.Now()
	for time.Now().Before(t) {
		if !ctxtime.Sleep(ctx, 250*time.Millisecond) {
			return false
		}
		st := r.lastState()
		if restarts := st.Restarts - r.base.Restarts; restarts >= r.opts.CrashLoop {
			r.logf("crash loop after the catch-up: %s restarted %d times", r.res.Target, restarts)
			r.stopLive()
			return false
		}
		if time.Since(last) >= 5*time.Second {
			last = time.Now()
			r.status(st)
		}
	}
	return true
}

func (r *cell) status(st cluster.NodeState) {
	cur, _ := r.lagNow()
	rss, _ := r.obs.Latest(observe.KindRSS, r.target)
	_, acked, failed, timedOut := r.fleet.stats.counts()
	h := "healthy"
	if !cur.TargetHealthy {
		h = "unhealthy: " + observe.OneLine(cur.TargetHealth, 60)
	}
	r.logf("  %s rss %s, %d msgs behind (leader last %d), %s; restarts %d, OOM kills %d; publishes ok %d failed %d timed out %d",
		r.res.Target, bytesize.Bytes(rss.Bytes), cur.Behind, cur.LeaderLastSeq, h,
		st.Restarts-r.base.Restarts, st.OOMKills-r.base.OOMKills, acked, failed, timedOut)
}
