package catchup

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
	if err := writeFile(filepath.Join(r.dir, PublishFile), func(w *bufio.Writer) error {
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
	return writeFile(filepath.Join(dir, ResultFile), func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(stored)
	})
}

// writeFile writes through a temp file, so a reader never sees half a file.
func writeFile(path string, f func(*bufio.Writer) error) error {
	tmp := path + ".tmp"
	fh, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(fh, 1<<16)
	if err := f(w); err != nil {
		fh.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return err
	}
	if err := fh.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
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
