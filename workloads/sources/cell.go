package sources

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
)

// SettingsFile holds the cell's Options: Check is given only the folder.
const SettingsFile = "sources.json"

// Cell is a stored sources cell as the checks see it.
type Cell struct {
	Options Options
	Ops     Ops
	// Streams are the streams read back (StreamsFile); nil when the
	// finish never wrote it.
	Streams []StreamRead
	// OriginStates are a work-queue cell's replicas of its origins
	// (OriginReplicasFile); nil when not read.
	OriginStates []OriginState
}

func writeSettings(dir string, o Options) error {
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, SettingsFile), b)
}

// Load reads a cell's files. A missing streams.json or
// origin-replicas.json leaves its field nil: the checks that need it say
// they could not judge.
func Load(dir string) (*Cell, error) {
	c := &Cell{}
	if err := readJSON(filepath.Join(dir, SettingsFile), &c.Options); err != nil {
		return nil, fmt.Errorf("not a sources cell: %w", err)
	}
	ops, err := history.ReadOps(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		return nil, err
	}
	if c.Ops, err = splitOps(ops); err != nil {
		return nil, fmt.Errorf("history.jsonl: %w", err)
	}
	for _, f := range []struct {
		name string
		v    any
	}{{StreamsFile, &c.Streams}, {OriginReplicasFile, &c.OriginStates}} {
		if err := readJSON(filepath.Join(dir, f.name), f.v); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return c, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Stream is the stream read back under name, or nil.
func (c *Cell) Stream(name string) *StreamRead {
	for i := range c.Streams {
		if c.Streams[i].Name == name {
			return &c.Streams[i]
		}
	}
	return nil
}

// readGap says why a stream's read-back cannot vouch for what it lacks,
// or "" when it is complete.
func (c *Cell) readGap(name string) string {
	s := c.Stream(name)
	switch {
	case c.Streams == nil:
		return "the streams were not read back (no " + StreamsFile + ": the cell stopped before its end)"
	case s == nil:
		return name + " was not read back"
	case s.Error != "":
		return "the read-back of " + name + " failed: " + s.Error
	case !s.Complete:
		return fmt.Sprintf("the read-back of %s holds %d of its %d messages", name, len(s.Messages), s.Msgs)
	}
	return ""
}

func fileExists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
