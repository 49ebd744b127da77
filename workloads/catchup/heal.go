package catchup

import (
	"context"
	"path/filepath"
	"time"
)

// heal lifts the target's limit and makes sure it runs (a node in a crash
// loop may be between restarts); the pipeline then waits, bounded, until
// every replica is current.
func (r *cell) heal(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	r.phase(PhaseHeal)
	if r.held != nil {
		r.held.Heal(ctx) // a no-op once the restart healed it
	}
	if r.opts.MemoryLimit > 0 {
		if err := r.c.SetMemoryLimit(ctx, r.target, 0); err != nil {
			r.note("lift the memory limit of %s: %v", r.res.Target, err)
		} else {
			r.event(r.target, EvLimit, "none")
			r.obs.limit(r.target, 0)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		st, err := r.c.State(ctx, r.target)
		if err == nil && st.Running {
			break
		}
		if err == nil {
			if err := r.c.Start(ctx, r.target); err == nil {
				r.event(r.target, EvStart, "heal")
			} else if time.Until(deadline) < time.Second {
				r.note("start %s at the heal: %v", r.res.Target, err)
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// verify compares the replicas and reads every id back.
func (r *cell) verify(ctx context.Context) {
	r.phase(PhaseVerify)
	in := &r.res.Integrity
	in.Replicas = r.obs.replicas(ctx, 30*time.Second)
	in.ReplicasAgree, in.ReplicasDetail = Agreement(in.Replicas)
	r.logf("replicas: %s", in.ReplicasDetail)
	acked := r.fleet.acked()
	r.logf("reading the stream back (headers only, bound %s)", r.opts.VerifyTimeout)
	got, read := readBack(ctx, r.js, r.opts.Stream, r.opts.VerifyTimeout)
	read.Replicas, read.ReplicasAgree, read.ReplicasDetail = in.Replicas, in.ReplicasAgree, in.ReplicasDetail
	*in = read
	in.Acked = acked.Len()
	in.Distinct = got.Len()
	var examples []ID
	in.Missing, in.Unacked, examples = Diff(acked, got, 10)
	for _, id := range examples {
		in.MissingExamples = append(in.MissingExamples, id.String())
	}
	in.BitmapBytes = acked.Bytes() + got.Bytes()
	r.logf("read back: %s; %d acked, %d missing, %d unacked present", in.ReadDetail, in.Acked, in.Missing, in.Unacked)
	if info, err := r.streamInfo(ctx); err == nil {
		r.res.Stream.FinalMsgs, r.res.Stream.FinalBytes = info.State.Msgs, info.State.Bytes
	}
}

// finish stops the samplers and fills in the derived figures; the checks
// are made later, from the files (see Check).
func (r *cell) finish() {
	r.phase("")
	if r.obs != nil {
		r.obs.stop()
		r.collect()
	}
}

// collect moves the observer's series into the result and derives peaks,
// events and the catch-up's before/after peaks.
func (r *cell) collect() {
	o := r.obs
	o.mu.Lock()
	defer o.mu.Unlock()
	r.res.Lag, r.res.Health, r.res.States = o.lag, o.health, o.states
	r.res.Memory = o.mem
	r.res.Events = append(DetectEvents(o.states, r.asked), r.asked...)
	sortEvents(r.res.Events)
	r.res.Deaths = Summarize(r.res.Events, r.opts.CrashLoop)
	if r.fleet != nil {
		r.res.Publish = r.fleet.stats.summary()
		r.res.Publish.AckedMBps = map[Phase]float64{}
		for _, ph := range r.res.Phases {
			if l, ok := r.res.Publish.Latency[ph.Name]; ok && ph.Seconds > 0 {
				r.res.Publish.AckedMBps[ph.Name] = round3(float64(l.Count) * float64(r.opts.Payload) / 1e6 / ph.Seconds)
			}
		}
	}
	if r.reader != nil {
		r.res.Reads = r.reader.summary()
	}
	// Peaks over the catch-up: from the restart to the end of the settle
	// (or of the wait); the fill is the baseline, not the subject.
	from, to := r.res.CatchUp.RestartAtMs, r.windowEnd()
	size := float64(r.res.Stream.RestartBytes)
	for i := range r.res.Memory {
		m := &r.res.Memory[i]
		if from > 0 {
			m.PeakUsage, m.PeakUsageAt = m.Usage.PeakBetween(from, to)
			m.PeakRSS, m.PeakRSSAt = m.RSS.PeakBetween(from, to)
		} else {
			m.PeakUsage, m.PeakUsageAt = m.Usage.Peak()
			m.PeakRSS, m.PeakRSSAt = m.RSS.Peak()
		}
		if size > 0 {
			m.PeakUsageRatio = round3(float64(m.PeakUsage) / size)
			m.PeakRSSRatio = round3(float64(m.PeakRSS) / size)
		}
	}
	cu := &r.res.CatchUp
	if t := r.targetMem(); t != nil && from > 0 {
		mid := to
		if cu.CurrentAtMs > 0 {
			mid = cu.CurrentAtMs
		}
		cu.PeakRSSDuring, _ = t.RSS.PeakBetween(from, mid+1)
		cu.PeakUsageDuring, _ = t.Usage.PeakBetween(from, mid+1)
		if cu.CurrentAtMs > 0 {
			cu.PeakRSSAfter, _ = t.RSS.PeakBetween(mid, to)
			cu.PeakUsageAfter, _ = t.Usage.PeakBetween(mid, to)
		}
	}
}

// windowEnd is the end of the measured window: the start of the heal, or
// now.
func (r *cell) windowEnd() int64 {
	if h := r.res.Phase(PhaseHeal); h.Name != "" {
		return h.StartMs
	}
	return r.now() + 1
}

func (r *cell) targetMem() *NodeMemory {
	for i := range r.res.Memory {
		if r.res.Memory[i].Node == r.res.Target {
			return &r.res.Memory[i]
		}
	}
	return nil
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// dirFile is a path in the cell's dir.
func (r *cell) dirFile(name string) string { return filepath.Join(r.dir, name) }
