package watch

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// EventsFile holds a watched cell's events, one JSON object a line (not
// events.jsonl: the catch-up workload keeps its own under that name).
const EventsFile = "cluster-events.jsonl"

// WriteEvents saves events to path.
func WriteEvents(path string, events []Event) error { return history.WriteLines(path, events) }

// ReadEvents loads what WriteEvents saved; none when the cell was not
// watched. A line that does not decode, or is not a watcher's event (no
// kind, a source neither poll nor log), is an error naming it.
func ReadEvents(path string) ([]Event, error) {
	evs, err := history.ReadLines[Event](path)
	if err != nil {
		return nil, err
	}
	for i, e := range evs {
		if e.Kind == "" || (e.Source != "poll" && e.Source != "log") {
			return nil, fmt.Errorf("%s:%d: not an event of the cluster's watcher (kind %q, source %q)", path, i+1, e.Kind, e.Source)
		}
	}
	return evs, nil
}
