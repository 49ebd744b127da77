package kvupdateview

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
)

// integrityKinds are stream-integrity's anomaly counts, worst first, with
// how a person says them.
var integrityKinds = []struct{ key, one, many string }{
	{kvcheck.CountLostWrite, "acknowledged write lost", "acknowledged writes lost"},
	{kvcheck.CountRevMismatch, "write stored at another revision than acknowledged", "writes stored at another revision than acknowledged"},
	{kvcheck.CountSeqConflict, "write acknowledged with another write's revision", "writes acknowledged with another write's revision"},
	{kvcheck.CountFailedWriteApplied, "failed write applied anyway", "failed writes applied anyway"},
	{kvcheck.CountUnexpectedValue, "value nobody wrote", "values nobody wrote"},
	{kvcheck.CountDuplicateValue, "value stored twice", "values stored twice"},
	{kvcheck.CountUnexpectedTombstone, "unexpected delete marker", "unexpected delete markers"},
	{kvcheck.CountBadRead, "read that matches no stored entry", "reads that match no stored entry"},
}

// Summary is what a kv-update cell's checks say, in the numbers a person
// asks for.
type Summary struct {
	Cell    record.CellResult
	Verdict record.Verdict
	Checks  int // checker results

	HasStale   bool // the stale-read checker ran
	Gets       int
	Stale      int
	StaleKeys  int
	StaleP50   float64 // ms
	StaleP99   float64
	StaleMax   float64
	StaleRevs  float64 // most versions missed by one read
	StaleHist  []checker.Bucket
	Updates    int      // update ops
	Rejections int      // wrong-last-sequence rejections
	RejStale   int      // of them, after a stale read
	RejConc    int      // of them, a concurrent write (correct behaviour)
	RejSpur    int      // of them, nothing else wrote the key
	SpurCodes  []string // "10164: 1"
	spurCodes  []string // "10164"

	Integrity  []string // "1 acknowledged write lost", ...
	RYW, Mono  int
	Keys       int
	KeysBad    int
	NotRecover string   // the recovery detail when it failed
	Undecided  []string // "linearizability: time bound reached"
	Invalid    []string // names of invalid checkers
	byName     map[string]*checker.Result
}

// Summarize reads a cell's checks.
func Summarize(c record.CellResult) Summary {
	s := Summary{Cell: c, Verdict: c.Verdict, Checks: len(c.Checks), Updates: c.Ops.ByType["update"],
		byName: map[string]*checker.Result{}}
	for i := range c.Checks {
		r := &c.Checks[i]
		s.byName[r.Name] = r
		switch r.Verdict {
		case checker.Valid:
		case checker.Invalid:
			s.Invalid = append(s.Invalid, r.Name)
		default:
			s.Undecided = append(s.Undecided, r.Name+": "+cmp.Or(r.Reason, r.Summary))
		}
	}
	if r := s.byName[kvcheck.NameStaleRead]; r != nil {
		s.HasStale = true
		s.Gets, s.Stale, s.StaleKeys = r.Counts[kvcheck.CountGets], r.Counts[kvcheck.CountStaleReads], r.Counts[kvcheck.CountKeysWithStaleReads]
		s.StaleP50, s.StaleP99, s.StaleMax = r.Stats[kvcheck.StatStalenessMsP50], r.Stats[kvcheck.StatStalenessMsP99], r.Stats[kvcheck.StatStalenessMsMax]
		s.StaleRevs = r.Stats[kvcheck.StatStalenessRevsMax]
		s.StaleHist = r.Histograms[kvcheck.StatStalenessMs]
	}
	if r := s.byName[kvcheck.NameAttribution]; r != nil {
		s.Rejections, s.RejStale, s.RejConc = r.Counts[kvcheck.CountRejections], r.Counts[kvcheck.CountRejectedStale], r.Counts[kvcheck.CountRejectedConcur]
		s.RejSpur = r.Counts[kvcheck.CountRejectedSpurious]
		for k, v := range r.Counts {
			if code, ok := strings.CutPrefix(k, kvcheck.CountRejectedSpurious+"_"); ok && v > 0 {
				s.SpurCodes = append(s.SpurCodes, fmt.Sprintf("%s: %d", code, v))
				s.spurCodes = append(s.spurCodes, code)
			}
		}
		sort.Strings(s.SpurCodes)
		sort.Strings(s.spurCodes)
	}
	if r := s.byName[kvcheck.NameIntegrity]; r != nil {
		for _, k := range integrityKinds {
			if n := r.Counts[k.key]; n > 0 {
				s.Integrity = append(s.Integrity, reports.Plural(n, k.one, k.many))
			}
		}
	}
	if r := s.byName[kvcheck.NameSession]; r != nil {
		s.RYW, s.Mono = r.Counts[kvcheck.CountRYWViolations], r.Counts[kvcheck.CountMonotonicViolations]
	}
	if r := s.byName[kvcheck.NameLinearizability]; r != nil {
		s.Keys, s.KeysBad = r.Counts[kvcheck.CountKeys], r.Counts[kvcheck.CountKeysIllegal]
	}
	if r := s.byName[checker.NameRecovery]; r != nil && r.Verdict == checker.Invalid {
		s.NotRecover = r.Summary
	}
	return s
}

// Check returns the named checker's result, nil when it did not run.
func (s Summary) Check(name string) *checker.Result { return s.byName[name] }

// Sentence is the cell's finding in words, without the cell's name:
// "2,807 stale reads (5.6 % of reads), 2,808 updates rejected because of
// them" or "none (all 6 checks passed)".
func (s Summary) Sentence() string {
	if out, done := reports.RunSentence(s.Cell); done {
		return out
	}
	var parts []string
	if s.Stale > 0 {
		p := fmt.Sprintf("%s (%s of reads)", reports.Plural(s.Stale, "stale read", "stale reads"), reports.FormatPercent(s.Stale, s.Gets))
		if s.RejStale > 0 {
			p += fmt.Sprintf(", %s rejected because of them", reports.Plural(s.RejStale, "update", "updates"))
		}
		parts = append(parts, p)
	} else if s.HasStale && s.Verdict == record.Invalid {
		parts = append(parts, "no stale reads")
	}
	if s.RejSpur > 0 {
		parts = append(parts, fmt.Sprintf("%s rejected (%s) although nothing else wrote the key",
			reports.Plural(s.RejSpur, "update", "updates"), strings.Join(s.spurCodes, ", ")))
	}
	parts = append(parts, s.Integrity...)
	if s.Stale == 0 && s.RYW+s.Mono > 0 {
		parts = append(parts, fmt.Sprintf("%s and %s", reports.Plural(s.RYW, "read-your-writes violation", "read-your-writes violations"),
			reports.Plural(s.Mono, "monotonic-read violation", "monotonic-read violations")))
	}
	if s.Stale == 0 && s.KeysBad > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d keys not linearizable", s.KeysBad, s.Keys))
	}
	if s.NotRecover != "" {
		parts = append(parts, "the cluster did not recover after the faults")
	}
	if len(s.Undecided) > 0 {
		names := make([]string, len(s.Undecided))
		for i, u := range s.Undecided {
			names[i], _, _ = strings.Cut(u, ":")
		}
		if s.Verdict == record.Unknown {
			parts = append(parts, "no anomaly found, but undecided: "+strings.Join(s.Undecided, "; "))
		} else {
			parts = append(parts, "undecided: "+strings.Join(names, ", "))
		}
	}
	if rest := s.unsaid(); len(rest) > 0 {
		parts = append(parts, "invalid: "+strings.Join(rest, ", "))
	}
	// "no stale reads, but b": what was not found, then what was.
	if len(parts) > 1 && parts[0] == "no stale reads" {
		return parts[0] + ", but " + reports.JoinClauses(parts[1:])
	}
	return reports.JoinClauses(parts)
}

// unsaid are the invalid checks no clause of Sentence speaks for (a
// replica divergence next to a 10164 rejection, which alone is no anomaly,
// must still be named).
func (s Summary) unsaid() []string {
	said := map[string]bool{
		kvcheck.NameStaleRead:       s.Stale > 0,
		kvcheck.NameSession:         s.RYW+s.Mono > 0,
		kvcheck.NameAttribution:     s.RejStale+s.RejSpur > 0,
		kvcheck.NameIntegrity:       len(s.Integrity) > 0,
		kvcheck.NameLinearizability: s.KeysBad > 0,
		checker.NameRecovery:        s.NotRecover != "",
	}
	var out []string
	for _, n := range s.Invalid {
		if !said[n] {
			out = append(out, n)
		}
	}
	return out
}
