package catchupview

import (
	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// CatchupSummary is what a catch-up cell's checks and catchup.json say, in
// the numbers an operator asks for. R is nil when catchup.json is missing:
// the cell ended before it measured anything, so its checks say nothing of it.
type CatchupSummary struct {
	Verdict record.Verdict
	Error   string
	Checks  int
	R       *catchup.Result
	byName  map[string]*checker.Result
}

// SummarizeCatchup reads a catch-up cell: its checks from results.json,
// its measurements from catchup.json (m nil when there is none).
func SummarizeCatchup(c record.CellResult, m *catchup.Result) CatchupSummary {
	s := CatchupSummary{Verdict: c.Verdict, Error: c.Error, Checks: len(c.Checks), byName: map[string]*checker.Result{}}
	for i := range c.Checks {
		s.byName[c.Checks[i].Name] = &c.Checks[i]
	}
	if m != nil {
		s.R = m
		// catchup.json of older runs held the checks and the error too:
		// they fill in for a cell cut short, whose results.json is missing.
		for i := range m.Checks {
			if s.byName[m.Checks[i].Name] == nil {
				s.byName[m.Checks[i].Name] = &m.Checks[i]
			}
		}
		if s.Error == "" {
			s.Error = m.Error
		}
	}
	return s
}

// Check returns the named check, nil when it did not run.
func (s CatchupSummary) Check(name string) *checker.Result { return s.byName[name] }

// Target is the node that was wiped and caught up ("" unknown).
func (s CatchupSummary) Target() string {
	if s.R == nil {
		return ""
	}
	return s.R.Target
}

// restarted: the target was started again, so there is a catch-up to measure.
func (s CatchupSummary) restarted() bool { return s.R != nil && s.R.CatchUp.RestartAtMs > 0 }

// limit is the target's hard memory limit (0: none).
func (s CatchupSummary) limit() int64 {
	if s.R == nil {
		return 0
	}
	if s.R.Options.MemoryLimit > 0 {
		return int64(s.R.Options.MemoryLimit)
	}
	if m := s.R.TargetMemory(); m != nil {
		l, _ := m.Limit.Peak()
		return max(l, 0)
	}
	return 0
}

// goMemLimit is the GOMEMLIMIT the nodes ran with (0: unset).
func (s CatchupSummary) goMemLimit() int64 {
	if s.R == nil {
		return 0
	}
	if s.R.GoMemLimit > 0 {
		return s.R.GoMemLimit
	}
	return s.R.Options.GoMemLimit.Bytes(int64(s.R.Options.MemoryLimit))
}

func (s CatchupSummary) deaths(node string) observe.Deaths {
	if s.R != nil {
		for _, d := range s.R.Deaths {
			if d.Node == node {
				return d
			}
		}
	}
	return observe.Deaths{Node: node}
}

// eventTimes are the times (ms) of a node's events of one kind.
func (s CatchupSummary) eventTimes(node string, kind observe.EventKind) []int64 {
	if s.R == nil {
		return nil
	}
	var out []int64
	for _, e := range s.R.Events {
		if e.Node == node && e.Kind == kind {
			out = append(out, e.TMs)
		}
	}
	return out
}
