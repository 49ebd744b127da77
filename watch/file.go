package watch

import "github.com/jetstream-chaos/jetstream-chaos/history"

// EventsFile holds a watched cell's events, one JSON object a line.
const EventsFile = "events.jsonl"

// WriteEvents saves events to path.
func WriteEvents(path string, events []Event) error { return history.WriteLines(path, events) }

// ReadEvents loads what WriteEvents saved; none when the cell was not
// watched. A line that does not decode is an error naming it.
func ReadEvents(path string) ([]Event, error) { return history.ReadLines[Event](path) }
