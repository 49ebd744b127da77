package catchupview

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/run"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// CatchupSummary is what a catch-up cell's checks and catchup.json say, in
// the numbers an operator asks for. R is nil when catchup.json is missing;
// the summary then says what the checks alone tell.
type CatchupSummary struct {
	Verdict run.Verdict
	Error   string
	Checks  int
	R       *catchup.Result
	byName  map[string]*checker.Result
}

// SummarizeCatchup reads a catch-up cell: its checks from results.json,
// its measurements from catchup.json (m nil when there is none).
func SummarizeCatchup(c run.CellResult, m *measured) CatchupSummary {
	s := CatchupSummary{Verdict: c.Verdict, Error: c.Error, Checks: len(c.Checks), byName: map[string]*checker.Result{}}
	for i := range c.Checks {
		s.byName[c.Checks[i].Name] = &c.Checks[i]
	}
	if m != nil {
		s.R = &m.Result
		// catchup.json of older runs held the checks and the error too:
		// they fill in for a cell cut short, whose results.json is missing.
		for i := range m.OldChecks {
			if s.byName[m.OldChecks[i].Name] == nil {
				s.byName[m.OldChecks[i].Name] = &m.OldChecks[i]
			}
		}
		if s.Error == "" {
			s.Error = m.OldError
		}
	}
	return s
}

// Check returns the named check, nil when it did not run.
func (s CatchupSummary) Check(name string) *checker.Result { return s.byName[name] }

func (s CatchupSummary) count(check, key string) int {
	if r := s.byName[check]; r != nil {
		return r.Counts[key]
	}
	return 0
}

// Target is the node that was wiped and caught up ("" unknown).
func (s CatchupSummary) Target() string {
	if s.R == nil {
		return ""
	}
	return s.R.Target
}

// restarted: the target was started again, so there was a catch-up to
// measure.
func (s CatchupSummary) restarted() bool {
	if s.R != nil {
		return s.R.CatchUp.RestartAtMs > 0
	}
	return s.byName[catchup.CheckCatchUp] != nil
}

// outcome is the catch-up's outcome (catchup.Outcome*), "" undecided.
func (s CatchupSummary) outcome() string {
	if s.R != nil {
		return s.R.CatchUp.Outcome
	}
	if r := s.byName[catchup.CheckCatchUp]; r != nil {
		switch {
		case r.Counts[catchup.CountCompleted] > 0:
			return catchup.OutcomeCurrent
		case r.Verdict == checker.Invalid:
			return catchup.OutcomeTimeout
		}
	}
	return ""
}

func (s CatchupSummary) catchupSeconds() float64 {
	if s.R != nil {
		return s.R.CatchUp.Seconds
	}
	return float64(s.count(catchup.CheckCatchUp, catchup.CountCatchUpMs)) / 1000
}

// limit is the target's hard memory limit (0: none).
func (s CatchupSummary) limit() int64 {
	if s.R == nil {
		return 0
	}
	if s.R.Options.MemoryLimit > 0 {
		return int64(s.R.Options.MemoryLimit)
	}
	if m := s.node(s.R.Target); m != nil {
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
	return s.R.Options.GoMemLimit.Bytes(s.R.Options.MemoryLimit)
}

func (s CatchupSummary) node(name string) *catchup.NodeMemory {
	if s.R == nil {
		return nil
	}
	for i := range s.R.Memory {
		if s.R.Memory[i].Node == name {
			return &s.R.Memory[i]
		}
	}
	return nil
}

func (s CatchupSummary) deaths(node string) catchup.Deaths {
	if s.R != nil {
		for _, d := range s.R.Deaths {
			if d.Node == node {
				return d
			}
		}
	}
	return catchup.Deaths{Node: node}
}

// eventTimes are the times (ms) of a node's events of one kind.
func (s CatchupSummary) eventTimes(node string, kind catchup.EventKind) []int64 {
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

// OOMKills is the number of OOM kills over all nodes.
func (s CatchupSummary) OOMKills() int {
	if s.R == nil {
		return s.count(catchup.CheckOOMKill, catchup.CountOOMKills)
	}
	n := 0
	for _, d := range s.R.Deaths {
		n += d.OOMKills
	}
	return n
}

// Sentence is the cell's finding in words, without the cell's name: "n1
// caught up 1.04 GiB in 4.9 s, peak 0.98 GiB RSS (0.94x the stream), no
// OOM kill, nothing lost".
func (s CatchupSummary) Sentence() string {
	pre := ""
	if s.Verdict == run.Error || s.Error != "" {
		pre = "did not run to the end (harness error)"
		if s.Error != "" {
			pre = "did not run to the end: " + reports.FirstLine(s.Error)
		}
		if !s.restarted() {
			return pre
		}
	}
	if s.Checks == 0 && s.R == nil {
		return "not checked"
	}
	target := cmp.Or(s.Target(), "the target")
	limit := s.limit()
	var cl []string
	bad := false
	d := s.deaths(s.Target())
	dying := d.OOMKills > 0 || d.Deaths > 0 || d.CrashLoop
	if s.R == nil {
		// Without catchup.json the checks tell the counts, not the node.
		if n := s.OOMKills(); n > 0 {
			dying = true
			d = catchup.Deaths{OOMKills: n, CrashLoop: s.count(catchup.CheckCrashLoop, catchup.CountCrashLoops) > 0}
		}
	}
	sec := s.catchupSeconds()
	switch out := s.outcome(); {
	case !s.restarted():
	case out == catchup.OutcomeCurrent:
		c := target + " caught up"
		if s.R != nil && s.R.Stream.RestartBytes > 0 {
			c += " " + reports.FormatBytes(float64(s.R.Stream.RestartBytes))
		}
		cl = append(cl, c+" in "+fmtSecs(sec))
		if m := s.memoryClause(limit, !dying); m != "" {
			cl = append(cl, m)
		}
		if dying {
			bad = true
			cl = append(cl, s.deathClause(d, limit))
		}
	case dying:
		bad = true
		cl = append(cl, target+" "+s.deathClause(d, limit))
		switch out {
		case "", catchup.OutcomeInterrupted:
			cl = append(cl, "catch-up not decided")
		default:
			cl = append(cl, "did not catch up"+s.notCurrent(out, sec))
		}
	case out == "" || out == catchup.OutcomeInterrupted:
		c := "catch-up of " + target + " not decided"
		if r := s.byName[catchup.CheckCatchUp]; r != nil && r.Summary != "" {
			c += " (" + strings.TrimPrefix(reports.FirstLine(r.Summary), "not decided: ") + ")"
		}
		cl = append(cl, c)
	default:
		bad = true
		c := target + " did not catch up"
		if s.R != nil && s.R.Stream.RestartBytes > 0 {
			c += " " + reports.FormatBytes(float64(s.R.Stream.RestartBytes))
		}
		cl = append(cl, c+s.notCurrent(out, sec))
		if m := s.memoryClause(limit, true); m != "" {
			cl = append(cl, m)
		}
	}
	others := false
	if s.R != nil {
		for _, od := range s.R.Deaths {
			if od.Node == s.R.Target || (od.OOMKills == 0 && od.Deaths == 0) {
				continue
			}
			others, bad = true, true
			cl = append(cl, od.Node+" "+s.deathClause(od, 0))
		}
	}
	if !dying && !others && s.restarted() {
		switch {
		case s.byName[catchup.CheckOOMKill] != nil || s.R != nil:
			cl = append(cl, "no OOM kill")
		}
	}
	if r := s.byName[catchup.CheckRecovery]; r != nil && r.Verdict == checker.Invalid {
		bad = true
		cl = append(cl, "the cluster did not recover after the heal")
	}
	if c := s.dataClause(); c != "" {
		if !strings.HasPrefix(c, "nothing lost") {
			bad = true
		}
		cl = append(cl, c)
	}
	if r := s.byName[catchup.CheckReplicasAgree]; r != nil && r.Verdict == checker.Invalid {
		bad = true
		cl = append(cl, "the replicas disagree ("+reports.FirstLine(r.Summary)+")")
	}
	if len(cl) == 0 {
		if pre != "" {
			return pre
		}
		return "nothing measured"
	}
	sep := ", "
	if bad || pre != "" {
		sep = "; "
	}
	out := strings.Join(cl, sep)
	if pre != "" {
		out = pre + "; " + out
	}
	return out
}

// memoryClause: "peak 0.98 GiB RSS (0.94x the stream)", with "under its
// 1.5 GiB limit" when one was set and kept to.
func (s CatchupSummary) memoryClause(limit int64, kept bool) string {
	m := s.node(s.Target())
	if m == nil || m.PeakRSS <= 0 {
		return ""
	}
	c := "peak " + reports.FormatBytes(float64(m.PeakRSS)) + " RSS"
	if m.PeakRSSRatio > 0 {
		c += " (" + fmtRatio(m.PeakRSSRatio) + " the stream)"
	}
	switch {
	case limit > 0 && kept:
		c += " under its " + fmtSize(limit) + " limit"
	case limit <= 0:
		c += " without a memory limit"
	}
	return c
}

// deathClause says a node's deaths nobody asked for: "OOM-killed 3 times
// (crash loop) under its 1.5 GiB limit, first 2.1 s after its restart".
func (s CatchupSummary) deathClause(d catchup.Deaths, limit int64) string {
	var c string
	if d.OOMKills > 0 {
		c = "OOM-killed " + times(d.OOMKills)
	} else {
		c = "died " + times(max(d.Deaths, d.Restarts)) + " by itself"
	}
	if d.CrashLoop {
		c += " (crash loop)"
	}
	if limit > 0 && d.OOMKills > 0 {
		c += " under its " + fmtSize(limit) + " limit"
	}
	ts := s.eventTimes(d.Node, catchup.EvOOMKill)
	if len(ts) == 0 {
		ts = d.TimesMs
	}
	if len(ts) > 0 && s.R != nil {
		first := ", first "
		if len(ts) == 1 {
			first = ", "
		}
		if r := s.R.CatchUp.RestartAtMs; r > 0 && ts[0] >= r && d.Node == s.R.Target {
			c += first + fmtSecs(float64(ts[0]-r)/1000) + " after its restart"
		} else {
			c += first + "at " + fmtAt(ts[0])
		}
	}
	return c
}

// notCurrent says how the wait for a catch-up that did not finish ended:
// " within 10 m" (the bound ran out), " (the wait stopped at the crash
// loop, 8.0 s after the restart)".
func (s CatchupSummary) notCurrent(out string, sec float64) string {
	switch out {
	case catchup.OutcomeCrashLoop:
		return " (the wait stopped at the crash loop, " + fmtSecs(sec) + " after the restart)"
	case catchup.OutcomeDown:
		return " (it stayed down; the wait stopped " + fmtSecs(sec) + " after the restart)"
	}
	switch {
	case s.R != nil && s.R.CatchUp.Bound > 0:
		return " within " + fmtDur(s.R.CatchUp.Bound)
	case s.R != nil && s.R.Options.CatchupTimeout > 0:
		return " within " + fmtDur(s.R.Options.CatchupTimeout)
	}
	return " within " + fmtSecs(sec)
}

// dataClause: "nothing lost", "3 of 70,000 acknowledged messages lost",
// or why it was not verified; "" when the check did not run.
func (s CatchupSummary) dataClause() string {
	r := s.byName[catchup.CheckAckedPresent]
	if r == nil {
		return ""
	}
	acked, missing := r.Counts[catchup.CountAcked], r.Counts[catchup.CountMissing]
	dups, malformed := r.Counts[catchup.CountDuplicates], r.Counts[catchup.CountMalformed]
	switch r.Verdict {
	case checker.Valid:
		return "nothing lost"
	case checker.Invalid:
		var parts []string
		if missing > 0 {
			parts = append(parts, fmt.Sprintf("%s of %s acknowledged messages lost", reports.FormatCount(missing), reports.FormatCount(acked)))
		}
		if dups > 0 {
			parts = append(parts, reports.Plural(dups, "message stored twice", "messages stored twice"))
		}
		if malformed > 0 {
			parts = append(parts, reports.Plural(malformed, "message without a valid id", "messages without a valid id"))
		}
		if len(parts) == 0 {
			return "acknowledged messages not all present: " + reports.FirstLine(r.Summary)
		}
		return strings.Join(parts, ", ")
	}
	why := r.Reason
	if why == "" {
		why = r.Summary
	}
	return "loss not verified (" + reports.FirstLine(why) + ")"
}

// times writes "once", "2 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return reports.FormatCount(n) + " times"
}

// fmtSecs writes a duration in seconds: 4.9 s, 42.3 s, 2 m 5 s.
func fmtSecs(s float64) string {
	if s < 99.95 {
		return fmt.Sprintf("%.1f s", s)
	}
	return fmtDur(time.Duration(math.Round(s)) * time.Second)
}

// fmtAt writes a moment, ms since the cell began, as seconds on the
// charts' axis: 12.2 s, 245.0 s.
func fmtAt(ms int64) string {
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

// fmtDur writes a bound as people say it: 10 m, 90 s, 2 m 30 s.
func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "0 s"
	case d < 100*time.Second && d%time.Minute != 0:
		return fmt.Sprintf("%g s", d.Seconds())
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d m", d/time.Minute)
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%d m %d s", d/time.Minute, (d%time.Minute)/time.Second)
}

// fmtSize writes a size that was asked for (a flag) as it was most likely
// written, with a space: 1.5 GiB, 6 GB, 40 MB.
func fmtSize(b int64) string {
	s := catchup.Bytes(b).String()
	if i := strings.IndexFunc(s, unicode.IsLetter); i > 0 {
		return s[:i] + " " + s[i:]
	}
	return s
}

// fmtRatio writes a ratio to the stream: 0.94x.
func fmtRatio(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.0fx", r)
	}
	return fmt.Sprintf("%.2fx", r)
}
