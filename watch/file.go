package watch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// EventsFile holds a watched cell's events, one JSON object a line.
const EventsFile = "events.jsonl"

// WriteEvents saves events to path.
func WriteEvents(path string, events []Event) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadEvents loads what WriteEvents saved; none when the cell was not
// watched (os.ErrNotExist is no error). A line that does not decode, or
// is not a watcher's event (no kind, a source neither poll nor log: the
// catch-up workload writes its own events.jsonl), is an error naming it.
func ReadEvents(path string) ([]Event, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if e.Kind == "" || (e.Source != "poll" && e.Source != "log") {
			return nil, fmt.Errorf("%s:%d: not an event of the cluster's watcher (kind %q, source %q)", path, n, e.Kind, e.Source)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
