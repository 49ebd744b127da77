package reports

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Headline is the verdict of a run in one sentence a person understands,
// as the run's page says it: "Direct Get on: 2,807 stale reads (5.6 % of
// reads), 2,808 updates rejected because of them; Direct Get off: none
// (all 6 checks passed)." The workload's view reads its cells' files
// under res.Dir (or each cell's recorded folder).
func Headline(res record.Result, exps ...record.Expectation) string {
	return strings.Join(HeadlineParts(res, exps...), " ")
}

// HeadlineParts is Headline cut into its clauses, one a cell (the page
// shows one a line); joined with spaces they are the sentence.
func HeadlineParts(res record.Result, exps ...record.Expectation) []string {
	r := runOf(res)
	r.Expect = exps
	return NewPage(r).Headline
}

// ShortLabels names each cell by what sets it apart from the others:
// "Direct Get on", "Direct Get off under kill", "v2.10.22, Direct Get on";
// tags[i] (may be nil or "") is what sets the cell's workload apart, put
// after Direct Get: "Direct Get on, 10 keys". Direct Get is always named:
// it is what the toolkit is about.
func ShortLabels(cells []record.CellResult, tags []string) []string {
	versions, nemeses := map[string]bool{}, map[string]bool{}
	for _, c := range cells {
		versions[c.ServerVersion] = true
		nemeses[c.Nemesis] = true
	}
	out := make([]string, len(cells))
	for i, c := range cells {
		s := "Direct Get " + OnOff(c.DirectGet)
		if len(versions) > 1 {
			s = c.ServerVersion + ", " + s
		}
		if i < len(tags) && tags[i] != "" {
			s += ", " + tags[i]
		}
		if len(nemeses) > 1 {
			if c.Nemesis == "" || c.Nemesis == "none" {
				s += " without faults"
			} else {
				s += " under " + c.Nemesis
			}
		}
		out[i] = s
	}
	return out
}

// OnOff writes a setting as the flags take it: on or off.
func OnOff(b bool) string { return record.OnOff(b) }

// CheckSentence is a cell's finding said from its checks alone, without
// the cell's name: "none (all 6 checks passed)", "did not run to the end:
// ...", or each invalid check with the first line of its summary, then
// the undecided ones.
func CheckSentence(c record.CellResult) string {
	if s, done := RunSentence(c); done {
		return s
	}
	var parts []string
	var undecided, names []string
	for _, r := range c.Checks {
		switch r.Verdict {
		case checker.Valid:
		case checker.Invalid:
			parts = append(parts, r.Name+": "+FirstLine(r.Summary))
		default:
			undecided = append(undecided, r.Name+": "+FirstLine(orDefault(r.Reason, r.Summary)))
			names = append(names, r.Name)
		}
	}
	switch {
	case len(undecided) == 0:
	case c.Verdict == record.Unknown:
		parts = append(parts, "no anomaly found, but undecided: "+strings.Join(undecided, "; "))
	default:
		parts = append(parts, "undecided: "+strings.Join(names, ", "))
	}
	return JoinClauses(parts)
}

// RunSentence says a cell that has no checks to speak of: a harness error
// ("did not run to the end: ..."), "not checked", or, all valid, "none
// (all 6 checks passed)"; done is false when the checks found something.
func RunSentence(c record.CellResult) (s string, done bool) {
	switch {
	case c.Verdict == record.Error || (c.Error != "" && len(c.Checks) == 0):
		if c.Error == "" {
			return "did not run to the end (harness error)", true
		}
		return "did not run to the end: " + FirstLine(c.Error), true
	case len(c.Checks) == 0:
		return "not checked", true
	case c.Verdict == record.Valid:
		return fmt.Sprintf("none (all %d checks passed)", len(c.Checks)), true
	}
	return "", false
}

// JoinClauses reads as a sentence: "a, b, and c".
func JoinClauses(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + ", and " + parts[len(parts)-1]
}

// FirstLine is the first line of s, cut to 200 characters.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

// VerdictLine says what the run's verdict and exit code mean; raw is the
// verdict before expected anomalies were excused.
func VerdictLine(v, raw record.Verdict) string {
	switch v {
	case record.Valid:
		if raw == record.Invalid {
			return "Only the expected anomalies were found (exit code 0 under --expect): the known finding reproduced and everything else passed."
		}
		return "Valid: every check passed in every cell (exit code 0)."
	case record.Invalid:
		return "Anomalies found in at least one cell (exit code 1)."
	case record.Unknown:
		return "Unknown: a check could not decide, and nothing was found (exit code 2). Unknown is never a pass."
	}
	return "Harness error: a cell could not run, so it proved nothing either way (exit code 4)."
}
