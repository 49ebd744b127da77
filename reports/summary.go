package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/run"
)

// Names of the checkers whose counts the report reads (checker/*.go and
// run.recoveryCheck document their Counts keys).
const (
	ckSession     = "session"
	ckStale       = "stale-read"
	ckAttribution = "wrong-last-seq"
	ckIntegrity   = "stream-integrity"
	ckLinear      = "linearizability"
	ckRecovery    = "recovery"
)

// integrityKinds are stream-integrity's anomaly counts, worst first, with
// how a person says them.
var integrityKinds = []struct{ key, one, many string }{
	{"lost_write", "acknowledged write lost", "acknowledged writes lost"},
	{"rev_mismatch", "write stored at another revision than acknowledged", "writes stored at another revision than acknowledged"},
	{"failed_write_applied", "failed write applied anyway", "failed writes applied anyway"},
	{"unexpected_value", "value nobody wrote", "values nobody wrote"},
	{"duplicate_value", "value stored twice", "values stored twice"},
	{"unexpected_tombstone", "unexpected delete marker", "unexpected delete markers"},
	{"bad_read", "read that matches no stored entry", "reads that match no stored entry"},
}

// Summary is what a cell's checks say, in the numbers a person asks for.
type Summary struct {
	Verdict run.Verdict
	Error   string // harness error
	Checks  int    // checker results
	Passed  int    // of them valid

	HasStale   bool // the stale-read checker ran
	Gets       int
	Stale      int
	StaleKeys  int
	StaleP50   float64 // ms
	StaleP99   float64
	StaleMax   float64
	StaleRevs  float64 // most versions missed by one read
	StaleHist  []checker.Bucket
	Updates    int // update ops
	Rejections int // wrong-last-sequence rejections
	RejStale   int // of them, after a stale read
	RejConc    int // of them, a concurrent write (correct behaviour)
	RejSpur    int // of them, nothing else wrote the key
	RejUnattr  int
	SpurCodes  []string // "10164: 1"
	spurCodes  []string // "10164"

	Integrity  []string // "1 acknowledged write lost", ...
	Lost       int
	RYW, Mono  int
	Keys       int
	KeysBad    int
	NotRecover string   // the recovery detail when it failed
	Undecided  []string // "linearizability: time bound reached"
	Invalid    []string // names of invalid checkers
	byName     map[string]*checker.Result
}

// Summarize reads a cell's checks.
func Summarize(c run.CellResult) Summary {
	s := Summary{Verdict: c.Verdict, Error: c.Error, Checks: len(c.Checks), Updates: c.Ops.ByType["update"],
		byName: map[string]*checker.Result{}}
	for i := range c.Checks {
		r := &c.Checks[i]
		s.byName[r.Name] = r
		switch r.Verdict {
		case checker.Valid:
			s.Passed++
		case checker.Invalid:
			s.Invalid = append(s.Invalid, r.Name)
		default:
			why := r.Reason
			if why == "" {
				why = r.Summary
			}
			s.Undecided = append(s.Undecided, r.Name+": "+why)
		}
	}
	if r := s.byName[ckStale]; r != nil {
		s.HasStale = true
		s.Gets, s.Stale, s.StaleKeys = r.Counts["gets"], r.Counts["stale_reads"], r.Counts["keys_with_stale_reads"]
		s.StaleP50, s.StaleP99, s.StaleMax = r.Stats["staleness_ms_p50"], r.Stats["staleness_ms_p99"], r.Stats["staleness_ms_max"]
		s.StaleRevs = r.Stats["staleness_revs_max"]
		s.StaleHist = r.Histograms["staleness_ms"]
	}
	if r := s.byName[ckAttribution]; r != nil {
		s.Rejections, s.RejStale, s.RejConc = r.Counts["rejections"], r.Counts["stale_read"], r.Counts["concurrent_write"]
		s.RejSpur, s.RejUnattr = r.Counts["spurious"], r.Counts["unattributed"]
		for k, v := range r.Counts {
			if code, ok := strings.CutPrefix(k, "spurious_"); ok && v > 0 {
				s.SpurCodes = append(s.SpurCodes, fmt.Sprintf("%s: %d", code, v))
				s.spurCodes = append(s.spurCodes, code)
			}
		}
		sort.Strings(s.SpurCodes)
		sort.Strings(s.spurCodes)
	}
	if r := s.byName[ckIntegrity]; r != nil {
		for _, k := range integrityKinds {
			if n := r.Counts[k.key]; n > 0 {
				s.Integrity = append(s.Integrity, Plural(n, k.one, k.many))
			}
		}
		s.Lost = r.Counts["lost_write"]
	}
	if r := s.byName[ckSession]; r != nil {
		s.RYW, s.Mono = r.Counts["ryw_violations"], r.Counts["monotonic_violations"]
	}
	if r := s.byName[ckLinear]; r != nil {
		s.Keys, s.KeysBad = r.Counts["keys"], r.Counts["keys_illegal"]
	}
	if r := s.byName[ckRecovery]; r != nil && r.Verdict == checker.Invalid {
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
	if s.Verdict == run.Error || (s.Error != "" && s.Checks == 0) {
		if s.Error == "" {
			return "did not run to the end (harness error)"
		}
		return "did not run to the end: " + FirstLine(s.Error)
	}
	if s.Checks == 0 {
		return "not checked"
	}
	if s.Verdict == run.Valid {
		return fmt.Sprintf("none (all %d checks passed)", s.Checks)
	}
	var parts []string
	if s.Stale > 0 {
		p := fmt.Sprintf("%s (%s of reads)", Plural(s.Stale, "stale read", "stale reads"), FormatPercent(s.Stale, s.Gets))
		if s.RejStale > 0 {
			p += fmt.Sprintf(", %s rejected because of them", Plural(s.RejStale, "update", "updates"))
		}
		parts = append(parts, p)
	} else if s.HasStale && s.Verdict == run.Invalid {
		parts = append(parts, "no stale reads")
	}
	if s.RejSpur > 0 {
		parts = append(parts, fmt.Sprintf("%s rejected (%s) although nothing else wrote the key",
			Plural(s.RejSpur, "update", "updates"), strings.Join(s.spurCodes, ", ")))
	}
	parts = append(parts, s.Integrity...)
	if s.Stale == 0 && s.RYW+s.Mono > 0 {
		parts = append(parts, fmt.Sprintf("%s and %s", Plural(s.RYW, "read-your-writes violation", "read-your-writes violations"),
			Plural(s.Mono, "monotonic-read violation", "monotonic-read violations")))
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
		if s.Verdict == run.Unknown {
			parts = append(parts, "no anomaly found, but undecided: "+strings.Join(s.Undecided, "; "))
		} else {
			parts = append(parts, "undecided: "+strings.Join(names, ", "))
		}
	}
	if len(parts) == 0 || (len(parts) == 1 && parts[0] == "no stale reads") {
		parts = append(parts, "invalid: "+strings.Join(s.Invalid, ", "))
	}
	return joinClauses(parts)
}

// joinClauses reads as a sentence: "a, b, and c"; "no stale reads, but b".
func joinClauses(parts []string) string {
	if len(parts) > 1 && parts[0] == "no stale reads" {
		return parts[0] + ", but " + joinClauses(parts[1:])
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + ", and " + parts[len(parts)-1]
}

// FirstLine is the first line of s, trimmed to 200 characters.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
