package catchupview

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// Sentence is the cell's finding in words, without the cell's name: "n1
// caught up 1.04 GiB in 4.9 s, peak 0.98 GiB RSS (0.94x the stream), no
// OOM kill, nothing lost".
func (s CatchupSummary) Sentence() string {
	pre := s.harnessClause()
	if pre != "" && !s.restarted() {
		return pre
	}
	switch { // pre is "" from here on when R is nil (not restarted)
	case s.R == nil && s.Checks == 0:
		return "not checked"
	case s.R == nil: // the checks were judged from the file: they are all that is left
		return "no " + catchup.ResultFile + ", so nothing measured to say: see the checks"
	}
	var cl clauses
	d, dying := s.targetDeaths()
	s.catchUpClauses(&cl, d, dying)
	s.jumpClause(&cl)
	others := s.otherDeaths(&cl)
	if !dying && !others && s.restarted() {
		cl.add(false, "no OOM kill")
	}
	s.afterHealClauses(&cl)
	if len(cl.list) == 0 {
		if pre != "" {
			return pre
		}
		return "nothing measured"
	}
	sep := ", "
	if cl.bad || pre != "" {
		sep = "; "
	}
	out := strings.Join(cl.list, sep)
	if pre != "" {
		out = pre + "; " + out
	}
	return out
}

// clauses collects a sentence's clauses; one that is a finding (bad) makes
// the sentence set its clauses apart with semicolons.
type clauses struct {
	list []string
	bad  bool
}

func (c *clauses) add(bad bool, s ...string) {
	c.list = append(c.list, s...)
	c.bad = c.bad || bad
}

// harnessClause says a harness error ("did not run to the end: ..."), or "".
func (s CatchupSummary) harnessClause() string {
	switch {
	case s.Error != "":
		return "did not run to the end: " + reports.FirstLine(s.Error)
	case s.Verdict == record.Error:
		return "did not run to the end (harness error)"
	}
	return ""
}

// targetDeaths are the target's deaths nobody asked for.
func (s CatchupSummary) targetDeaths() (d observe.Deaths, dying bool) {
	d = s.deaths(s.Target())
	return d, d.OOMKills > 0 || d.Deaths > 0 || d.CrashLoop
}

// catchUpClauses: caught up (with its memory and deaths), died, undecided or not.
func (s CatchupSummary) catchUpClauses(cl *clauses, d observe.Deaths, dying bool) {
	if !s.restarted() {
		return
	}
	target := cmp.Or(s.Target(), "the target")
	limit, sec := s.limit(), s.R.CatchUp.Seconds
	size := ""
	if s.R.Stream.RestartBytes > 0 {
		size = " " + reports.FormatBytes(float64(s.R.Stream.RestartBytes))
	}
	switch out := s.R.CatchUp.Outcome; {
	case out == catchup.OutcomeCurrent:
		cl.add(false, target+" caught up"+size+" in "+reports.FormatSecs(sec))
		if m := s.memoryClause(limit, !dying); m != "" {
			cl.add(false, m)
		}
		if dying {
			cl.add(true, s.deathClause(d, limit))
		}
	case dying:
		cl.add(true, target+" "+s.deathClause(d, limit))
		if out == "" || out == catchup.OutcomeInterrupted {
			cl.add(false, "catch-up not decided")
		} else {
			cl.add(false, "did not catch up"+s.notCurrent(out, sec))
		}
	case out == "" || out == catchup.OutcomeInterrupted:
		c := "catch-up of " + target + " not decided"
		if r := s.byName[catchup.CheckCatchUp]; r != nil && r.Summary != "" {
			c += " (" + strings.TrimPrefix(reports.FirstLine(r.Summary), "not decided: ") + ")"
		}
		cl.add(false, c)
	default:
		cl.add(true, target+" did not catch up"+size+s.notCurrent(out, sec))
		if m := s.memoryClause(limit, true); m != "" {
			cl.add(false, m)
		}
	}
}

// jumpClause names the jump the memory check found, OOM kill or not: the
// property the report is about is bounded memory, not the kernel's verdict.
func (s CatchupSummary) jumpClause(cl *clauses) {
	r := s.byName[catchup.CheckMemory]
	if r == nil || r.Verdict != checker.Invalid {
		return
	}
	if r.Counts[catchup.CountTargetCensored] == 1 { // the limit held the peak down: the demand is what passed the bound
		cl.add(true, fmt.Sprintf("its memory demand was at least its %s limit (beyond the catch-up memory bound)",
			reports.FormatBytes(float64(r.Counts[catchup.CountTargetLimit]))))
		return
	}
	t, o := float64(r.Counts[catchup.CountTargetPeakRSS]), float64(r.Counts[catchup.CountOtherPeakRSS])
	c := fmt.Sprintf("its memory jumped to %s RSS", reports.FormatBytes(t))
	if o > 0 {
		c += fmt.Sprintf(", %.0fx the other follower's %s", t/o, reports.FormatBytes(o))
	}
	cl.add(true, c+" (beyond the catch-up memory bound)")
}

// otherDeaths says the other nodes' unasked deaths; true when there were any.
func (s CatchupSummary) otherDeaths(cl *clauses) bool {
	if s.R == nil {
		return false
	}
	others := false
	for _, od := range s.R.Deaths {
		if od.Node == s.R.Target || (od.OOMKills == 0 && od.Deaths == 0) {
			continue
		}
		others = true
		cl.add(true, od.Node+" "+s.deathClause(od, 0))
	}
	return others
}

// afterHealClauses say what the heal and the read-back found.
func (s CatchupSummary) afterHealClauses(cl *clauses) {
	if r := s.byName[checker.NameRecovery]; r != nil && r.Verdict == checker.Invalid {
		cl.add(true, "the cluster did not recover after the heal")
	}
	if c := s.dataClause(); c != "" {
		cl.add(!strings.HasPrefix(c, "nothing lost"), c)
	}
	if r := s.byName[catchup.CheckReplicasAgree]; r != nil && r.Verdict == checker.Invalid {
		cl.add(true, "the replicas disagree ("+reports.FirstLine(r.Summary)+")")
	}
}

// memoryClause: "peak 0.98 GiB RSS (0.94x the stream)", with "under its
// 1.5 GiB limit" when one was set and kept to.
func (s CatchupSummary) memoryClause(limit int64, kept bool) string {
	m := s.R.TargetMemory()
	if m == nil || m.PeakRSS <= 0 {
		return ""
	}
	c := "peak " + reports.FormatBytes(float64(m.PeakRSS)) + " RSS"
	if m.PeakRSSRatio > 0 {
		c += " (" + reports.FormatRatio(m.PeakRSSRatio) + " the stream)"
	}
	switch {
	case limit > 0 && kept:
		c += " under its " + reports.FormatSize(limit) + " limit"
	case limit <= 0:
		c += " without a memory limit"
	}
	return c
}

// deathClause says a node's deaths nobody asked for: "OOM-killed 3 times
// (crash loop) under its 1.5 GiB limit, first 2.1 s after its restart".
func (s CatchupSummary) deathClause(d observe.Deaths, limit int64) string {
	var c string
	if d.OOMKills > 0 {
		c = "OOM-killed " + reports.Times(d.OOMKills)
	} else {
		c = "died " + reports.Times(max(d.Deaths, d.Restarts)) + " by itself"
	}
	if d.CrashLoop {
		c += " (crash loop)"
	}
	if limit > 0 && d.OOMKills > 0 {
		c += " under its " + reports.FormatSize(limit) + " limit"
	}
	ts := s.eventTimes(d.Node, observe.EvOOMKill)
	if len(ts) == 0 {
		ts = d.TimesMs
	}
	if len(ts) > 0 && s.R != nil {
		first := ", first "
		if len(ts) == 1 {
			first = ", "
		}
		if r := s.R.CatchUp.RestartAtMs; r > 0 && ts[0] >= r && d.Node == s.R.Target {
			c += first + reports.FormatSecs(float64(ts[0]-r)/1000) + " after its restart"
		} else {
			c += first + "at " + reports.FormatAt(ts[0])
		}
	}
	return c
}

// notCurrent says how the wait for an unfinished catch-up ended: " within
// 10 m", " (the wait stopped at the crash loop, 8.0 s after the restart)".
func (s CatchupSummary) notCurrent(out string, sec float64) string {
	switch out {
	case catchup.OutcomeCrashLoop:
		return " (the wait stopped at the crash loop, " + reports.FormatSecs(sec) + " after the restart)"
	case catchup.OutcomeDown:
		return " (it stayed down; the wait stopped " + reports.FormatSecs(sec) + " after the restart)"
	}
	switch {
	case s.R != nil && s.R.CatchUp.Bound > 0:
		return " within " + reports.FormatDuration(s.R.CatchUp.Bound)
	case s.R != nil && s.R.Options.CatchupTimeout > 0:
		return " within " + reports.FormatDuration(s.R.Options.CatchupTimeout)
	}
	return " within " + reports.FormatSecs(sec)
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
	return "loss not verified (" + reports.FirstLine(cmp.Or(r.Reason, r.Summary)) + ")"
}
