package schedule

import (
	"fmt"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// roundSlack is how far before its create a repeating schedule's first
// due time can fall: the server rounds the stored time to the second
// before adding the period (parseMsgSchedule).
const roundSlack = int64(500 * time.Millisecond)

// Repeat is schedule-repeat: every repeating schedule fires once per
// period, never early, and misses none. Counts:
//   - fired_twice: two firings name the same next due time (each firing's
//     Nats-Schedule-Next becomes its schedule's due time, so two with one
//     value fired for one period);
//   - early: a firing stored before the due time the previous firing
//     named, or the first before its create's time plus the period (less
//     the server's rounding);
//   - missed: no firing within the bound (see Input.bound) of a due time,
//     up to the schedule's stop; a fault's delay is not a miss, and the
//     server fires once for periods a fault made it skip;
//   - refused_fired: a schedule whose create was refused, fired;
//   - unread (unknown): the read-back is incomplete, so a gap may be
//     firings not read;
//   - firings: the tally; due_in_fault: periods due inside a fault
//     window.
func Repeat(in Input, max int) checker.Result {
	b := checker.NewBuilder(CheckRepeat, max)
	by, _ := in.firings()
	stops := map[string]int64{}
	for _, s := range in.Ops.Stops {
		stops[s.Subject] = s.Wall
	}
	n := 0
	for _, c := range in.Ops.Creates {
		if c.Kind != KindEvery {
			continue
		}
		n++
		fs := by[c.Subject]
		b.Counts["firings"] += len(fs)
		if c.H.Outcome == history.Fail {
			if len(fs) > 0 {
				b.Flag("refused_fired", func() checker.Anomaly {
					return anomaly(c, fs[:1], fmt.Sprintf("schedule %s fired %d time(s) although its create was refused (%s)", c.Subject, len(fs), refusal(c.H)))
				})
			}
			continue
		}
		repeat(b, in, c, fs, stops[c.Subject])
	}
	b.Summarize(fmt.Sprintf("repeating schedules misfired: %s", kinds(b.Counts, "fired_twice", "early", "missed", "refused_fired")),
		fmt.Sprintf("%d repeating schedules fired %d times, once per period, none missed (%d periods due inside a fault window)", n, b.Counts["firings"], b.Counts["due_in_fault"]))
	return b.Result
}

// repeat judges one repeating schedule's firings, in stored order, up to
// its stop (0: never stopped).
func repeat(b *checker.Builder, in Input, c CreateAt, fs []Firing, stop int64) {
	byNext := map[string]Firing{}
	var uniq []Firing // the firings without the second of a pair
	for _, f := range fs {
		if g, dup := byNext[f.Next]; dup {
			b.Flag("fired_twice", func() checker.Anomaly {
				return anomaly(c, []Firing{g, f}, fmt.Sprintf("schedule %s (@every %s) fired twice for one period: sequences %d (stored %s) and %d (stored %s) both name %s as the next due time",
					c.Subject, c.Every, g.Seq, clock(g.Time), f.Seq, clock(f.Time), f.Next))
			})
			continue
		}
		byNext[f.Next] = f
		uniq = append(uniq, f)
	}
	// due is when the next firing is due: the first after the create,
	// then each firing's named next.
	due := c.WallInvoke + int64(c.Every) - roundSlack
	dueWhy := fmt.Sprintf("its create at %s plus the period", clock(c.WallInvoke))
	for k, f := range uniq {
		if f.Time < due {
			b.Flag("early", func() checker.Anomaly {
				return anomaly(c, []Firing{f}, fmt.Sprintf("schedule %s (@every %s) fired at sequence %d, stored %s, %s before it was due (%s, %s)",
					c.Subject, c.Every, f.Seq, clock(f.Time), since(f.Time, due), clock(due), dueWhy))
			})
		}
		if c.H.Outcome == history.OK {
			late := due
			if k == 0 {
				late = c.WallComplete + int64(c.Every) + roundSlack
			}
			missed(b, in, c, late, f.Time, &f)
		}
		next, ok := f.NextTime()
		if !ok {
			return // a firing with no next time: the schedule ended there
		}
		due, dueWhy = next, fmt.Sprintf("named next by sequence %d", f.Seq)
	}
	if c.H.Outcome == history.OK && stop > 0 {
		if len(uniq) == 0 {
			due = c.WallComplete + int64(c.Every) + roundSlack
		}
		missed(b, in, c, due, stop, nil)
	}
}

// missed flags a firing (nil: the schedule's stop) later than the bound
// of a firing due at due: a period went by without one.
func missed(b *checker.Builder, in Input, c CreateAt, due, at int64, f *Firing) {
	if in.Bounds.Fire <= 0 {
		b.Unsure("unbounded", "the cell's bounds were not stored (no "+SettingsFile+"), so a gap cannot be called a missed period", nil)
		return
	}
	limit, why := in.bound(due)
	if in.inWindow(due) {
		b.Counts["due_in_fault"]++
	}
	if in.atEdge(due) {
		b.Counts["due_at_fault_edge"]++
	}
	if at <= limit {
		return
	}
	if !in.Final.Complete {
		b.Unsure("unread", "the read-back is incomplete, so a gap in a repeating schedule's firings may be firings not read: "+in.Final.Detail, nil)
		return
	}
	b.Flag("missed", func() checker.Anomaly {
		if f == nil {
			return anomaly(c, nil, fmt.Sprintf("schedule %s (@every %s) was due at %s and did not fire by its stop at %s, %s later, beyond %s",
				c.Subject, c.Every, clock(due), clock(at), since(due, at), why))
		}
		return anomaly(c, []Firing{*f}, fmt.Sprintf("schedule %s (@every %s) was due at %s and next fired at sequence %d, stored %s, %s later, beyond %s",
			c.Subject, c.Every, clock(due), f.Seq, clock(f.Time), since(due, at), why))
	})
}
