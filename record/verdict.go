package record

import "github.com/jetstream-chaos/jetstream-chaos/checker"

// Verdict of a cell or a run. Harness errors are their own verdict: a cell
// that could not run proved nothing either way.
type Verdict string

// The verdicts, from best to worst as Worse orders them: valid, unknown,
// error, invalid.
const (
	Valid   Verdict = "valid"
	Invalid Verdict = "invalid"
	Unknown Verdict = "unknown"
	Error   Verdict = "error"
)

// Exit codes, documented in the README.
const (
	ExitValid       = 0
	ExitInvalid     = 1
	ExitUnknown     = 2
	ExitUsage       = 3
	ExitHarness     = 4
	ExitInterrupted = 130
)

// ExitCode maps a verdict to the process exit code.
func (v Verdict) ExitCode() int {
	switch v {
	case Valid:
		return ExitValid
	case Invalid:
		return ExitInvalid
	case Unknown:
		return ExitUnknown
	}
	return ExitHarness
}

// Worse orders verdicts: an anomaly found is the strongest signal, then a
// harness error, then unknown.
func Worse(a, b Verdict) Verdict {
	rank := map[Verdict]int{Valid: 0, Unknown: 1, Error: 2, Invalid: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// VerdictOf is the verdict of a cell's checks.
func VerdictOf(checks []checker.Result) Verdict {
	switch checker.Worst(checks) {
	case checker.Valid:
		return Valid
	case checker.Invalid:
		return Invalid
	}
	return Unknown
}
