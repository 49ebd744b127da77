package catchup

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Files of a cell's dir, beside the pipeline's (observe.File, history.jsonl).
const (
	ResultFile  = "catchup.json" // the Result
	PublishFile = "publish.csv"  // PublishSummary.PerSecond, in cells stored before the history held publishes
)

func (r *cell) writeFiles() error {
	if r.dir == "" {
		return nil
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	r.res.Files = []string{ResultFile}
	if r.obs != nil { // catchup.json names the observer's file and leaves the series to it
		r.res.Observed = observe.File
		r.res.Files = append(r.res.Files, observe.File)
	}
	if err := Save(r.dir, r.res); err != nil {
		return fmt.Errorf("%s: %w", ResultFile, err)
	}
	return nil
}

// Save writes r as dir's catchup.json, its paths relative to dir. With
// Observed set, what Load puts back from that file (the series, the events
// nobody asked for) is left out: it is stored once.
func Save(dir string, r Result) error {
	stored := r // the cell copied elsewhere names no folder of the machine that ran it
	if err := record.Relative(dir, stored.machinePaths()...); err != nil {
		return err
	}
	if stored.Observed != "" {
		stored.Memory, stored.Lag, stored.Health, stored.States, stored.Deaths = nil, nil, nil, nil, nil
		stored.Events = nil
		for _, e := range r.Events {
			if !e.Unasked() {
				stored.Events = append(stored.Events, e)
			}
		}
	}
	return atomicfile.WriteWith(filepath.Join(dir, ResultFile), func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(stored)
	})
}
