package findings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// A Describer puts one workload's recorded settings (a cell's Settings in
// results.json) in the words of a bug report, so that someone who never
// saw this toolkit can redo the workload with any client. A workload's view
// package registers one beside its finding classes (RegisterDescriber);
// kv-update's is built in (kv.go). A cell of a workload without one is
// described by its settings as JSON.
type Describer interface {
	// Setup is the workload in one paragraph, for the finding's
	// environment: what it created and how its clients ran, with numbers.
	Setup(settings json.RawMessage, directGet bool) (string, error)
	// Steps is the workload as steps, lower case and joined by
	// semicolons, for "How to reproduce it by hand" (between starting the
	// nodes and injecting the faults).
	Steps(settings json.RawMessage, directGet bool) (string, error)
}

// Describe is a Describer of two functions of a workload's own settings
// type S, into which it decodes the cell's settings.
func Describe[S any](setup, steps func(s S, directGet bool) string) Describer {
	return describeFuncs[S]{setup, steps}
}

type describeFuncs[S any] struct{ setup, steps func(S, bool) string }

func (d describeFuncs[S]) decode(raw json.RawMessage) (S, error) {
	var s S
	err := json.Unmarshal(raw, &s)
	return s, err
}

func (d describeFuncs[S]) Setup(raw json.RawMessage, directGet bool) (string, error) {
	s, err := d.decode(raw)
	if err != nil {
		return "", err
	}
	return d.setup(s, directGet), nil
}

func (d describeFuncs[S]) Steps(raw json.RawMessage, directGet bool) (string, error) {
	s, err := d.decode(raw)
	if err != nil {
		return "", err
	}
	return d.steps(s, directGet), nil
}

var (
	describersMu sync.RWMutex
	describers   = map[string]Describer{}
)

// RegisterDescriber makes d describe the cells of workload. It panics on a
// second describer for one workload: a programming error found at start.
func RegisterDescriber(workload string, d Describer) {
	describersMu.Lock()
	defer describersMu.Unlock()
	if _, dup := describers[workload]; dup || workload == kvWorkload {
		panic("findings: a second describer for workload " + workload)
	}
	describers[workload] = d
}

// describer is the cell's workload's describer: kv-update's for a run
// stored before run.json named its workload.
func (c *cell) describer() Describer {
	describersMu.RLock()
	defer describersMu.RUnlock()
	if d, ok := describers[c.run.Workload]; ok {
		return d
	}
	return kvDescriber
}

// workloadLine is the environment's workload line: its describer's
// paragraph, else the workload's settings as recorded.
func (c *cell) workloadLine() string {
	if s, err := c.describer().Setup(c.res.Settings, c.res.DirectGet); err == nil && s != "" {
		return s
	}
	var compact bytes.Buffer
	if len(c.res.Settings) == 0 || json.Compact(&compact, c.res.Settings) != nil {
		return ""
	}
	return fmt.Sprintf("%s, settings `%s`", orUnknown(c.run.Workload), compact.String())
}

// workloadSteps is the workload as steps to redo by hand, "" when its
// describer has none.
func (c *cell) workloadSteps() string {
	s, err := c.describer().Steps(c.res.Settings, c.res.DirectGet)
	if err != nil {
		return ""
	}
	return s
}
