package queue

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Cell is a stored queue cell as the checkers see it: the settings from
// queue.json, the history and the stream read back after the drain.
type Cell struct {
	Options   Options
	Consumers []string
	Ops       []Op
	// Stream is stream.jsonl; StreamRead is false when the file is missing
	// (the read-back never ran), StreamComplete when it holds every message
	// the stream's state counted. StreamTorn is the line of stream.jsonl cut
	// short (its last: the read-back did not finish), or 0.
	Stream         []history.Entry
	StreamRead     bool
	StreamComplete bool
	StreamTorn     int
}

// Load reads a cell's queue.json, history.jsonl and stream.jsonl.
func Load(dir string) (*Cell, error) {
	cf, err := readCellFile(dir)
	if err != nil {
		return nil, fmt.Errorf("not a queue cell: %w", err)
	}
	if n := cf.Options.Consumers; n < 1 || n > maxConsumers {
		return nil, fmt.Errorf("%s: %d consumers, but the workload creates 1..%d", filepath.Join(dir, SettingsFile), n, maxConsumers)
	}
	path := filepath.Join(dir, "history.jsonl")
	ops, err := history.ReadOps(path)
	if err != nil {
		return nil, err
	}
	typed, err := queueOps(ops)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkRefusals(path, typed); err != nil {
		return nil, err
	}
	c := &Cell{Options: cf.Options, Consumers: cf.Consumers, Ops: typed}
	entries, complete, torn, err := history.ReadStreamTorn(filepath.Join(dir, StreamFile))
	switch {
	case err == nil:
		c.Stream, c.StreamRead, c.StreamComplete, c.StreamTorn = entries, true, complete, torn
	case errors.Is(err, os.ErrNotExist):
	default:
		return nil, err
	}
	if len(c.Consumers) != c.Options.Consumers {
		return nil, fmt.Errorf("%s: %d consumer names for %d consumers", filepath.Join(dir, SettingsFile), len(c.Consumers), c.Options.Consumers)
	}
	return c, nil
}

// readBackGap says why the read-back cannot vouch for what it lacks, as
// kv-update's read-back check says it: "the read-back holds 10 messages;
// stream.jsonl is cut short at line 12: the read-back did not finish".
func (c *Cell) readBackGap() string {
	switch {
	case !c.StreamRead:
		return "the stream was not read back"
	case c.StreamTorn > 0:
		return fmt.Sprintf("the read-back holds %d messages%s", len(c.Stream), checker.TornNote(c.StreamTorn))
	}
	return fmt.Sprintf("the read-back holds %d messages, fewer than the stream counted", len(c.Stream))
}

// checkRefusals holds every publish recorded as failed to what the
// producer's recordErr (client.Classify) records as fail: a refusal by
// JetStream API error code (other than 10158, a copy in process), or no
// responders. The failed_publish_applied rule trusts that outcome, so a
// failed publish without a refusal (a timeout, which carries no code) is
// a malformed record, not a failure.
func checkRefusals(file string, ops []Op) error {
	for n := range ops {
		op := &ops[n]
		if op.Type != OpPublish || op.Outcome != history.Fail || op.Err == history.ErrNoResponders ||
			(op.ErrCode != 0 && op.Err != history.ErrMsgIDInProcess) {
			continue
		}
		return &history.LineError{File: file, Line: n + 1, Err: fmt.Errorf(
			"publish of %s recorded as failed without a refusal (err %q, code %d): a publish the server did not refuse may be stored, so it is info", op.M.Value, op.Err, op.ErrCode)}
	}
	return nil
}
