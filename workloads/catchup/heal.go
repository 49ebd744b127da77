package catchup

import (
	"context"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/history/msgid"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// heal lifts the target's limit and makes sure it runs (a node in a crash
// loop may be between restarts); the pipeline then waits for recovery.
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
			r.obs.Limit(r.target, 0)
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
	in.Replicas = observe.Replicas(ctx, r.c.Nodes(), r.opts.Stream, 30*time.Second)
	in.ReplicasAgree, in.ReplicasDetail = observe.Agreement(in.Replicas)
	r.logf("replicas: %s", in.ReplicasDetail)
	acked := r.fleet.acked()
	r.logf("reading the stream back (headers only, bound %s)", r.opts.VerifyTimeout)
	got, read := msgid.ReadBack(ctx, r.js, r.opts.Stream, r.opts.VerifyTimeout)
	in.Read, in.Dups, in.Malformed, in.Complete = read.Messages, read.Dups, read.Malformed, read.Complete
	in.LastSeqRead, in.ReadDetail, in.ReadSeconds = read.LastSeq, read.Detail, read.Seconds
	in.Acked = acked.Len()
	in.Distinct = got.Len()
	var examples []msgid.ID
	in.Missing, in.Unacked, examples = msgid.Diff(acked, got, 10)
	for _, id := range examples {
		in.MissingExamples = append(in.MissingExamples, id.String())
	}
	in.BitmapBytes = acked.Bytes() + got.Bytes()
	r.logf("read back: %s; %d acked, %d missing, %d unacked present", in.ReadDetail, in.Acked, in.Missing, in.Unacked)
	if info, err := r.streamInfo(ctx); err == nil {
		r.res.Stream.FinalMsgs, r.res.Stream.FinalBytes = info.State.Msgs, info.State.Bytes
	}
}

// finish closes the last phase and sums up the publishers and the reader;
// the checks are made later, from the files (Check).
func (r *cell) finish() {
	r.phase("")
	r.res.Events = append([]observe.Event(nil), r.asked...)
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
}
