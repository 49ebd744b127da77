package schedule

import (
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The checks' names.
const (
	CheckOnce    = "schedule-once"
	CheckRepeat  = "schedule-repeat"
	CheckRemoved = "schedule-removed"
)

// Check judges a stored schedule cell from its files alone: history.jsonl,
// FinalFile and the replicas. A cell without its read-back (it stopped
// before its Finish) is judged on what its live consumer saw, and is
// unknown where only the read-back can decide.
func Check(dir string, opts checker.Options) ([]checker.Result, error) {
	ops, err := history.ReadOps(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		return nil, err
	}
	so, err := splitOps(ops)
	if err != nil {
		return nil, err
	}
	final, ok, err := loadFinal(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", FinalFile, err)
	}
	if !ok {
		final = Final{Detail: "the targets were not read back (no " + FinalFile + ": the cell stopped before its end)"}
	}
	b := Bounds{}
	if o, ok := settingsOf(dir); ok {
		b = Bounds{Fire: o.FireBound, Grace: o.FireGrace}
	}
	in := Input{Ops: so, Final: final, Bounds: b}
	out := []checker.Result{
		checker.Guard(CheckOnce, func() checker.Result { return Once(in, opts.MaxExamples) }),
	}
	if in.hasKind(KindEvery) {
		out = append(out, checker.Guard(CheckRepeat, func() checker.Result { return Repeat(in, opts.MaxExamples) }))
	}
	reps, _, rerr := replicaread.Load(dir)
	out = append(out, checker.Guard(CheckRemoved, func() checker.Result { return Removed(in, reps, rerr, opts.MaxExamples) }))
	if final.Replicas {
		out = append(out, checker.Guard(replicas.NameDivergence, func() checker.Result { return replicaread.Judge(dir, opts) }))
	}
	return out, nil
}

// Bounds are how late a firing may be: Fire away from faults, Grace
// after a fault window that overlaps its due time.
type Bounds struct {
	Fire, Grace time.Duration
}

// Input is what the checks judge: the typed ops, the read-back and the
// bounds.
type Input struct {
	Ops    Ops
	Final  Final
	Bounds Bounds
}

func (in Input) hasKind(kind string) bool {
	for _, c := range in.Ops.Creates {
		if c.Kind == kind {
			return true
		}
	}
	return false
}

// firings are every firing known, by schedule, in stored order: the
// read-back's, and those the live consumer saw that the read-back lacks
// (lost, when the read-back was complete).
func (in Input) firings() (bySchedule map[string][]Firing, lost []SeenAt) {
	bySchedule = map[string][]Firing{}
	read := map[uint64]bool{}
	for _, f := range in.Final.Firings {
		read[f.ID()] = true
		bySchedule[f.Scheduler] = append(bySchedule[f.Scheduler], f)
	}
	for _, s := range in.Ops.Seen {
		if read[s.ID()] {
			continue
		}
		read[s.ID()] = true
		bySchedule[s.Scheduler] = append(bySchedule[s.Scheduler], s.Firing)
		lost = append(lost, s)
	}
	for _, fs := range bySchedule {
		sort.Slice(fs, func(i, j int) bool {
			return fs[i].Time < fs[j].Time || fs[i].Time == fs[j].Time && fs[i].ID() < fs[j].ID()
		})
	}
	return bySchedule, lost
}

// bound is the bound a firing is held to, and the fault window that
// stretched it, in words.
func (in Input) bound(due int64) (int64, string) {
	d, by := deadline(due, in.Bounds.Fire, in.Bounds.Grace, in.Ops.Windows)
	if by == nil {
		return d, fmt.Sprintf("--fire-bound %s", in.Bounds.Fire)
	}
	return d, fmt.Sprintf("--fire-grace %s after the %s window ending %s", in.Bounds.Grace, by.Fault, clock(by.End))
}

// clock is a wall-clock time as the examples print it.
func clock(ns int64) string {
	return time.Unix(0, ns).UTC().Format("15:04:05.000")
}

// since is b-a in seconds, as the examples print it.
func since(a, b int64) string {
	return fmt.Sprintf("%.3fs", time.Duration(b-a).Seconds())
}

// inWindow says whether a fault window holds wall-clock time t.
func (in Input) inWindow(t int64) bool {
	for _, w := range in.Ops.Windows {
		if w.Start <= t && t <= w.End {
			return true
		}
	}
	return false
}

// edge is how near a fault's injection or heal a due time counts as
// landing on it.
const edge = int64(time.Second)

// atEdge says whether wall-clock time t is within edge of a fault
// window's start or end.
func (in Input) atEdge(t int64) bool {
	for _, w := range in.Ops.Windows {
		if abs(t-w.Start) <= edge || abs(t-w.End) <= edge {
			return true
		}
	}
	return false
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
