package record

import (
	"path/filepath"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
)

// LiveFile is a run in progress, in its run folder: the cell running, its
// phase, its live line and its fault windows so far, rewritten about once
// a second (and at each phase and fault), so that `chaos serve` shows a
// long hunt as it goes. It is written by rename, so a reader never sees
// half of it.
const LiveFile = "live.json"

// Live is what LiveFile holds.
type Live struct {
	Cell  string `json:"cell"`
	Phase string `json:"phase"`
	// Line is the live line as the terminal shows it.
	Line string `json:"line,omitempty"`
	// Fault is the fault in effect now; empty when none is.
	Fault string `json:"fault,omitempty"`
	// Windows are the cell's faults so far.
	Windows []LiveWindow `json:"windows"`
	// Elapsed is the time since the cell's workload began, in seconds.
	Elapsed float64   `json:"elapsed_s"`
	Updated time.Time `json:"updated"`
	// Done: the run has ended; its results.json and report.html are there.
	Done bool `json:"done,omitempty"`
}

// LiveWindow is one fault of the cell in progress, in seconds since its
// workload began; End is 0 while the fault is in effect.
type LiveWindow struct {
	Fault string  `json:"fault"`
	Start float64 `json:"start_s"`
	End   float64 `json:"end_s,omitempty"`
}

// WriteLive replaces runDir's LiveFile with l.
func WriteLive(runDir string, l Live) error {
	l.Updated = time.Now().UTC()
	if l.Windows == nil {
		l.Windows = []LiveWindow{}
	}
	return atomicfile.WriteJSON(filepath.Join(runDir, LiveFile), l)
}

// ReadLive reads runDir's LiveFile; ok is false when there is none.
func ReadLive(runDir string) (l Live, ok bool, err error) {
	ok, err = atomicfile.ReadJSON(filepath.Join(runDir, LiveFile), &l)
	return l, ok, err
}
