package checker

// Examples keeps at most max anomalies of each kind, for a check that
// counts every anomaly but shows a few.
type Examples struct {
	max    int
	byKind map[string]int
	list   []Anomaly
}

// NewExamples keeps up to max examples of each kind.
func NewExamples(max int) *Examples { return &Examples{max: max, byKind: map[string]int{}} }

// Want reports whether one more example of kind would be kept, so callers
// can skip building descriptions they would throw away.
func (e *Examples) Want(kind string) bool { return e.byKind[kind] < e.max }

// Add keeps a if its kind has room.
func (e *Examples) Add(a Anomaly) {
	if !e.Want(a.Kind) {
		return
	}
	e.byKind[a.Kind]++
	e.list = append(e.list, a)
}

// List is the examples kept, in the order added.
func (e *Examples) List() []Anomaly { return e.list }
