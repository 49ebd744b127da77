package catchup

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
)

// Files a cell writes into its dir; the nodes' series are the pipeline's,
// in observe.File.
const (
	ResultFile  = "catchup.json" // the Result
	PublishFile = "publish.csv"  // one line a second
)

func (r *cell) writeFiles() error {
	if r.dir == "" {
		return nil
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return err
	}
	r.res.Files = []string{ResultFile, PublishFile}
	if r.obs != nil { // the pipeline's observer holds the nodes' series: catchup.json names its file, and stores them not
		r.res.Observed = observe.File
		r.res.Files = append(r.res.Files, observe.File)
	}
	if err := atomicfile.WriteWith(filepath.Join(r.dir, PublishFile), func(w *bufio.Writer) error {
		return writePublishCSV(w, r.res.Publish.PerSecond)
	}); err != nil {
		return fmt.Errorf("%s: %w", PublishFile, err)
	}
	if err := Save(r.dir, r.res); err != nil {
		return fmt.Errorf("%s: %w", ResultFile, err)
	}
	return nil
}

// Save writes a Result's catchup.json into dir (for callers that change a
// Result after Run, e.g. to add log lines), its paths relative to dir.
// With Observed set, the series Load put back from the nodes' readings
// are left out, and so are the events nobody asked for: they are stored
// once, in that file.
func Save(dir string, r Result) error {
	stored, err := relativeTo(dir, r)
	if err != nil {
		return err
	}
	if stored.Observed != "" {
		stored.Memory, stored.Lag, stored.Health, stored.States, stored.Deaths = nil, nil, nil, nil, nil
		stored.Events = nil
		for _, e := range r.Events {
			if Asked(e) {
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

func writePublishCSV(w io.Writer, secs []PublishSecond) error {
	fmt.Fprintln(w, "t_s,ok,errors,timeouts,p50_ms,p99_ms,max_ms")
	for _, s := range secs {
		if _, err := fmt.Fprintf(w, "%d,%d,%d,%d,%.3f,%.3f,%.3f\n", s.T, s.OK, s.Errors, s.Timeouts, s.P50Ms, s.P99Ms, s.MaxMs); err != nil {
			return err
		}
	}
	return nil
}
