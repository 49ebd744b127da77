package checker

// Builder builds a Result one finding at a time, for a workload's checks:
// Flag makes it invalid, Unsure makes a valid one unknown and keeps the
// first reason, and both count the case under its kind and keep at most
// Max examples of each kind (the example is only built then). Summarize
// writes the line the verdict calls for.
type Builder struct {
	Result
	// Max is how many examples of one kind are kept.
	Max  int
	kept map[string]int
}

// NewBuilder starts a valid Result named name, keeping max examples of a
// kind (10 when max is 0 or less).
func NewBuilder(name string, max int) *Builder {
	if max <= 0 {
		max = 10
	}
	return &Builder{Result: Result{Name: name, Verdict: Valid, Counts: map[string]int{}}, Max: max, kept: map[string]int{}}
}

// Flag counts an anomaly of kind, makes the verdict invalid and keeps the
// example example builds.
func (b *Builder) Flag(kind string, example func() Anomaly) {
	b.Counts[kind]++
	b.Verdict = Invalid
	b.keep(kind, example)
}

// Unsure counts a case of kind the check cannot decide: a valid verdict
// becomes unknown, and reason says why when it is the first.
func (b *Builder) Unsure(kind, reason string, example func() Anomaly) {
	b.Counts[kind]++
	if b.Verdict == Valid {
		b.Verdict = Unknown
	}
	if b.Reason == "" {
		b.Reason = reason
	}
	b.keep(kind, example)
}

func (b *Builder) keep(kind string, example func() Anomaly) {
	if example == nil || b.kept[kind] >= b.Max {
		return
	}
	b.kept[kind]++
	a := example()
	if a.Kind == "" {
		a.Kind = kind
	}
	b.Anomalies = append(b.Anomalies, a)
}

// Summarize sets the one-line summary: found when the verdict is invalid,
// else clean (what was looked at), with the reason when unknown.
func (b *Builder) Summarize(found, clean string) {
	switch b.Verdict {
	case Invalid:
		b.Summary = found
	case Unknown:
		b.Summary = clean + "; unknown: " + b.Reason
	default:
		b.Summary = clean
	}
}
