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
// Counts:
//   - left: a replica still holds a fired one-shot's schedule message
//     (proof: the replica's entry and the firing);
//   - checked: fired one-shots looked for on every replica;
//   - unread (unknown): the replicas were not read, or one was read only
//     in part.
func Removed(in Input, reps []replicas.Replica, loadErr error, max int) checker.Result {
	b := checker.NewBuilder(CheckRemoved, max)
	if loadErr != nil {
		why := "the replicas were not read: " + loadErr.Error()
		if errors.Is(loadErr, fs.ErrNotExist) {
			why = "the replicas were not read (the cell stopped before its finish, or reading them failed: see the run's log)"
		}
		b.Unsure("unread", why, nil)
		b.Summarize("", "no replica read")
		return b.Result
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
	b.Summarize(fmt.Sprintf("fired one-shot schedules left on a replica: %d", b.Counts["left"]),
		fmt.Sprintf("%d fired one-shot schedules gone from every replica", len(fired)))
	return b.Result
}
