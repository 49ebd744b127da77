package schedule

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Once is schedule-once: every one-shot schedule fires exactly once, not
// before its time, and in time. Counts:
//   - fired_twice: two firings name one schedule (proof: both stored);
//   - early: a firing stored before its schedule's @at time;
//   - late: the first firing stored after its bound (see Input.bound),
//     from the later of its due time and its create's acknowledgement;
//   - never_fired: an acknowledged schedule with no firing in a complete
//     read-back begun after its bound;
//   - refused_fired: a schedule whose create was refused, fired;
//   - lost: a firing the live consumer read that a complete read-back
//     lacks;
//   - unread (unknown): no firing seen, and the read-back is incomplete
//     or began before the bound;
//   - fired, indeterminate_fired, indeterminate_unfired: the tallies;
//     due_in_fault: acknowledged one-shots due inside a fault window, and
//     due_at_fault_edge: within a second of a fault's injection or heal,
//     which say the faults landed on due times.
func Once(in Input, max int) checker.Result {
	b := checker.NewBuilder(CheckOnce, max)
	by, lost := in.firings()
	n := 0
	for _, c := range in.Ops.Creates {
		if c.Kind != KindAt {
			continue
		}
		n++
		fs := by[c.Subject]
		switch c.H.Outcome {
		case history.Fail:
			if len(fs) > 0 {
				b.Flag("refused_fired", func() checker.Anomaly {
					return anomaly(c, fs, fmt.Sprintf("schedule %s fired %d time(s) although its create was refused (%s)", c.Subject, len(fs), refusal(c.H)))
				})
			}
			continue
		case history.Info:
			if len(fs) == 0 {
				b.Counts["indeterminate_unfired"]++
			} else {
				b.Counts["indeterminate_fired"]++
			}
		}
		if len(fs) > 0 {
			b.Counts["fired"]++
		}
		once(b, in, c, fs)
	}
	if in.Final.Complete {
		for _, s := range lost {
			b.Flag("lost", func() checker.Anomaly {
				return checker.Anomaly{Key: s.Scheduler, Ops: []checker.OpRef{{Index: s.Op}},
					Description: fmt.Sprintf("the firing of %s at sequence %d (stored %s) was read live, and the complete read-back after the heal lacks it", s.Scheduler, s.Seq, clock(s.Time))}
			})
		}
	}
	b.Summarize(fmt.Sprintf("one-shot schedules misfired: %s", kinds(b.Counts, "fired_twice", "early", "late", "never_fired", "refused_fired", "lost")),
		fmt.Sprintf("%d one-shot schedules, %d fired once, on time (%d due inside a fault window)", n, b.Counts["fired"], b.Counts["due_in_fault"]))
	return b.Result
}

// once judges one one-shot schedule that may have been stored.
func once(b *checker.Builder, in Input, c CreateAt, fs []Firing) {
	if len(fs) > 1 {
		b.Flag("fired_twice", func() checker.Anomaly {
			return anomaly(c, fs, fmt.Sprintf("schedule %s (@at %s) fired %d times: %s", c.Subject, clock(c.At), len(fs), listFirings(fs)))
		})
	}
	for _, f := range fs {
		if f.Time < c.At {
			b.Flag("early", func() checker.Anomaly {
				return anomaly(c, []Firing{f}, fmt.Sprintf("schedule %s fired at sequence %d, stored %s, %s before its time (@at %s)",
					c.Subject, f.Seq, clock(f.Time), since(f.Time, c.At), clock(c.At)))
			})
		}
	}
	if c.H.Outcome != history.OK {
		return // stored when, if at all, is not known: no bound
	}
	if in.Bounds.Fire <= 0 {
		if len(fs) == 0 {
			b.Unsure("unbounded", "the cell's bounds were not stored (no "+SettingsFile+"), so a schedule not seen fired cannot be called late or lost", nil)
		}
		return
	}
	due := max(c.At, c.WallComplete)
	limit, why := in.bound(due)
	if in.inWindow(c.At) {
		b.Counts["due_in_fault"]++
	}
	if in.atEdge(c.At) {
		b.Counts["due_at_fault_edge"]++
	}
	switch {
	case len(fs) > 0 && fs[0].Time > limit:
		f := fs[0]
		b.Flag("late", func() checker.Anomaly {
			return anomaly(c, fs[:1], fmt.Sprintf("schedule %s (@at %s, acknowledged %s) first fired at sequence %d, stored %s: %s after it was due, beyond %s",
				c.Subject, clock(c.At), clock(c.WallComplete), f.Seq, clock(f.Time), since(due, f.Time), why))
		})
	case len(fs) > 0:
	case !in.Final.Complete || in.Final.ReadAt < limit:
		why := "the read-back began before its deadline"
		if !in.Final.Complete {
			why = "the read-back is incomplete: " + in.Final.Detail
		}
		b.Unsure("unread", fmt.Sprintf("schedule %s was not seen fired, and %s", c.Subject, why), nil)
	default:
		b.Flag("never_fired", func() checker.Anomaly {
			return anomaly(c, nil, fmt.Sprintf("schedule %s (@at %s, acknowledged at sequence %d) never fired: no message on %s in the complete read-back at %s, past its deadline %s (%s)",
				c.Subject, clock(c.At), c.Seq, c.Target, clock(in.Final.ReadAt), clock(limit), why))
		})
	}
}

// anomaly is an example naming the create's op and the firings.
func anomaly(c CreateAt, fs []Firing, desc string) checker.Anomaly {
	a := checker.Anomaly{Key: c.Subject, Description: desc, Ops: []checker.OpRef{{Index: c.Op, Op: c.H}}}
	for _, f := range fs {
		a.Entries = append(a.Entries, history.Entry{Seq: f.Seq, Key: f.Target, Value: f.Body + " next " + f.Next})
	}
	return a
}

func listFirings(fs []Firing) string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("sequence %d stored %s", f.Seq, clock(f.Time)))
	}
	return strings.Join(out, ", ")
}

func refusal(op history.Op) string {
	s := string(op.Err)
	if op.ErrCode != 0 {
		s += fmt.Sprintf(" %d", op.ErrCode)
	}
	if op.ErrMsg != "" {
		s += fmt.Sprintf(" %q", op.ErrMsg)
	}
	return s
}

// kinds lists the counts of the kinds that are not zero.
func kinds(counts map[string]int, names ...string) string {
	var out []string
	for _, n := range names {
		if counts[n] > 0 {
			out = append(out, fmt.Sprintf("%d %s", counts[n], strings.ReplaceAll(n, "_", " ")))
		}
	}
	return strings.Join(out, ", ")
}
