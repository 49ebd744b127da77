package schedule

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Removed is schedule-removed: a one-shot schedule that fired is gone
// from every replica's copy of the schedule stream, as its firing's
// `Nats-Schedule-Next: purge` removes it (nats-server scheduler.go).
// A work-queue cell's replicas cannot be read one by one (see
// Final.States): there the leader's copy is judged, and the verdict is
// unknown unless every server reports the same state of the stream.
// Counts:
//   - left: a replica still holds a fired one-shot's schedule message
//     (proof: the replica's entry and the firing);
//   - checked: fired one-shots looked for on every replica;
//   - unread (unknown): the replicas were not read, or one was read only
//     in part.
func Removed(in Input, reps []replicas.Replica, loadErr error, max int) checker.Result {
	b := checker.NewBuilder(CheckRemoved, max)
	if in.Final.States == nil && loadErr != nil {
		why := "the replicas were not read: " + loadErr.Error()
		if errors.Is(loadErr, fs.ErrNotExist) {
			why = "the replicas were not read (the cell stopped before its finish, or reading them failed: see the run's log)"
		}
		b.Unsure("unread", why, nil)
		b.Summarize("", "no replica read")
		return b.Result
	}
	if in.Final.States != nil {
		var why string
		reps, why = leaderCopy(in.Final)
		if why != "" {
			b.Unsure("replica_states_differ", why, nil)
		}
	}
	by, _ := in.firings()
	fired := map[string]CreateAt{}
	for _, c := range in.Ops.Creates {
		if c.Kind == KindAt && len(by[c.Subject]) > 0 {
			fired[c.Subject] = c
		}
	}
	for _, rp := range reps {
		if rp.NotReplica {
			continue
		}
		if !rp.Complete {
			b.Unsure("unread", fmt.Sprintf("replica %s was read only in part: %s", rp.Node, rp.Error), nil)
		}
		for _, e := range rp.Entries {
			c, ok := fired[e.Key]
			if !ok {
				continue
			}
			f := by[e.Key][0]
			b.Flag("left", func() checker.Anomaly {
				a := anomaly(c, []Firing{f}, fmt.Sprintf("schedule %s fired at sequence %d (stored %s), and %s still holds the schedule at sequence %d",
					c.Subject, f.Seq, clock(f.Time), rp.Node, e.Seq))
				a.Entries = append(a.Entries, history.Entry{Seq: e.Seq, Key: e.Key, Value: rp.Node + ": " + e.Value})
				return a
			})
		}
	}
	b.Counts["checked"] = len(fired)
	where := "every replica"
	if in.Final.States != nil {
		where = "the leader's copy, whose /jsz state every replica shares (a work-queue stream's consumers must have its replicas, so no one server's copy can be read)"
	}
	b.Summarize(fmt.Sprintf("fired one-shot schedules left on a replica: %d", b.Counts["left"]),
		fmt.Sprintf("%d fired one-shot schedules gone from %s", len(fired), where))
	return b.Result
}

// leaderCopy is a work-queue cell's one readable copy, the leader's, as a
// replica, and why the others cannot be taken to match it ("" when every
// server reports the same state).
func leaderCopy(f Final) ([]replicas.Replica, string) {
	rep := replicas.Replica{Node: "the leader", Entries: f.LeaderSchedules, Complete: f.Complete}
	if !f.Complete {
		rep.Error = f.Detail
	}
	return []replicas.Replica{rep}, statesAgree(f.States)
}

// statesAgree says how the servers' /jsz states of a stream differ, or ""
// when every server answered with the same state.
func statesAgree(states []replicas.Replica) string {
	var first *replicas.State
	for _, s := range states {
		switch {
		case s.State == nil && s.Error != "":
			return fmt.Sprintf("%s did not report its state: %s", s.Node, s.Error)
		case s.State == nil:
			continue // holds no copy: not one of the stream's peers
		case first == nil:
			first = s.State
		case *s.State != *first:
			return fmt.Sprintf("the servers' states of the stream differ: %+v and %s's %+v", *first, s.Node, *s.State)
		}
	}
	if first == nil {
		return "no server reported a copy of the stream"
	}
	return ""
}
