package findings

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// runInfo is what the run folder above the cell says: run.json's
// workload and command, results.json's command and versions.
type runInfo struct {
	Workload      string
	Command       string
	ClientVersion string
	GoVersion     string
	// HasSpec says run.json was read; SyncInterval is then the nodes'
	// sync_interval as run.json records it ("" the server's default).
	HasSpec      bool
	SyncInterval string
}

// streamHead is the first line of stream.jsonl. Trimmed is set by the
// testdata trimmer: the file keeps only the entries a finding cites, and
// Count is still the number that was read back.
type streamHead struct {
	Complete bool `json:"complete"`
	Count    int  `json:"count"`
	Trimmed  bool `json:"trimmed,omitempty"`
}

// cell is everything stored about one cell that a finding may cite.
type cell struct {
	dir     string
	res     record.CellResult
	run     runInfo
	ops     []history.Op // empty when history.jsonl is missing
	stream  []history.Entry
	head    streamHead
	hasHist bool
	configs map[string]string    // node -> nats-server config file
	logs    map[string][]logLine // node -> parsed log
	nodes   []string             // sorted node names
	used    *usage               // nil unless the testdata trimmer asks
}

// load reads a stored cell folder, its result given (nil: read from its
// results.json). Only the result is required; the other files make the
// finding richer when they are there.
func load(dir string, result *record.CellResult) (*cell, error) {
	c := &cell{dir: dir, configs: map[string]string{}, logs: map[string][]logLine{}}
	if result == nil {
		res, err := readCellAsStored(dir)
		if err != nil {
			return nil, err
		}
		result = &res
	}
	c.res = *result
	if err := c.loadRun(filepath.Dir(dir)); err != nil {
		return nil, err
	}
	if !anyInvalid(c.res.Checks) {
		return c, nil // no finding to write: nothing else to read
	}
	ops, err := c.readOps(filepath.Join(dir, "history.jsonl"))
	switch {
	case err == nil:
		c.ops, c.hasHist = ops, true
	case !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	if err := c.loadStream(filepath.Join(dir, "stream.jsonl")); err != nil {
		return nil, err
	}
	if err := c.loadNodes(); err != nil {
		return nil, err
	}
	return c, nil
}

// readCellAsStored reads the cell's results.json as it is, without
// record's decoders of older shapes (record.ReadCell): an old cell's
// cells[].workload object is kv-update's options in a kv-update run, but
// kv-update's zero options in a catch-up run, and a finding must not
// describe settings the run did not have. A finding reads no folder of the
// result, so none is resolved.
func readCellAsStored(dir string) (record.CellResult, error) {
	var res record.CellResult
	path := filepath.Join(dir, record.ResultFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return res, err
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// wholeHistoryOps is the longest history a finding reads whole. Of a
// longer one (an hour-long run's) it reads the fault records and the ops
// of the keys the invalid checks' examples name, since every lookup it
// makes is within one key (lookup.go); a variable for tests.
var wholeHistoryOps = 1_000_000

func (c *cell) readOps(path string) ([]history.Op, error) {
	lines, err := history.CountLines(path)
	if err != nil || lines <= wholeHistoryOps {
		return history.ReadOps(path)
	}
	keys := map[string]bool{}
	for _, r := range c.res.Checks {
		if r.Verdict != checker.Invalid {
			continue
		}
		for _, a := range r.Anomalies {
			if a.Key == "" {
				return history.ReadOps(path) // an example of no one key: read it all
			}
			keys[a.Key] = true
		}
	}
	return history.ReadOpsWhere(path, func(o *history.Op) bool {
		return o.Type == history.Fault || o.Client == history.NemesisClient || keys[o.Key]
	})
}

func anyInvalid(rs []checker.Result) bool {
	for _, r := range rs {
		if r.Verdict == checker.Invalid {
			return true
		}
	}
	return false
}

// loadRun reads run.json and, when the run is over, results.json of the
// run folder. Both are optional: a cell copied out of its run still gets
// a finding, without the rerun command.
func (c *cell) loadRun(runDir string) error {
	for _, f := range []string{record.SpecFile, record.ResultFile} {
		path := filepath.Join(runDir, f)
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if err := c.run.merge(f, b); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// merge fills what r lacks from the run's file f (run.json or
// results.json), whose content is b.
func (r *runInfo) merge(f string, b []byte) error {
	var o runInfo
	if f == record.SpecFile {
		spec, err := record.DecodeSpec(b)
		if err != nil {
			return err
		}
		o = runInfo{Workload: spec.Workload, Command: spec.Command, HasSpec: true, SyncInterval: spec.Cluster.SyncInterval}
	} else {
		res, err := record.DecodeResult(b)
		if err != nil {
			return err
		}
		o = runInfo{Command: res.Command, ClientVersion: res.ClientVersion, GoVersion: res.GoVersion}
	}
	set := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	set(&r.Workload, o.Workload)
	set(&r.Command, o.Command)
	set(&r.ClientVersion, o.ClientVersion)
	set(&r.GoVersion, o.GoVersion)
	if o.HasSpec {
		r.HasSpec, r.SyncInterval = true, o.SyncInterval
	}
	return nil
}

// loadStream reads stream.jsonl with its head line kept, so a trimmed
// file still says how much was read back.
func (c *cell) loadStream(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	if !sc.Scan() {
		return fmt.Errorf("%s: empty", path)
	}
	if err := json.Unmarshal(sc.Bytes(), &c.head); err != nil {
		return fmt.Errorf("%s:1: %w", path, err)
	}
	for line := 2; sc.Scan(); line++ {
		var e history.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		c.stream = append(c.stream, e)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if !c.head.Trimmed && len(c.stream) != c.head.Count {
		c.head.Complete = false
	}
	return nil
}

// loadNodes reads config/<node>.conf and logs/<node>.log.
func (c *cell) loadNodes() error {
	seen := map[string]bool{}
	for _, sub := range []struct{ dir, ext string }{{"config", ".conf"}, {"logs", ".log"}} {
		paths, _ := filepath.Glob(filepath.Join(c.dir, sub.dir, "*"+sub.ext))
		for _, p := range paths {
			node := strings.TrimSuffix(filepath.Base(p), sub.ext)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if sub.ext == ".conf" {
				c.configs[node] = string(b)
			} else {
				c.logs[node] = parseLog(string(b), c.logZone())
			}
			if !seen[node] {
				seen[node] = true
				c.nodes = append(c.nodes, node)
			}
		}
	}
	sort.Strings(c.nodes)
	return nil
}

// logZone is the zone the servers' log times are in: a container FROM
// scratch has no zone data and logs UTC; a local process logs the host's
// local time.
func (c *cell) logZone() *time.Location {
	if c.res.Runtime == "local" {
		return time.Local
	}
	return time.UTC
}

// wall is the wall-clock time of a history time (ns since its zero).
func (c *cell) wall(ns int64) time.Time { return c.res.HistoryStart.Add(time.Duration(ns)) }

// clientOps yields the client ops (not fault records) in file order.
func (c *cell) clientOps() []history.Op {
	out := make([]history.Op, 0, len(c.ops))
	for _, o := range c.ops {
		if o.Type != history.Fault && o.Client != history.NemesisClient {
			out = append(out, o)
		}
	}
	return out
}

// check is the cell's result of the named checker, nil if absent.
func (c *cell) check(name string) *checker.Result {
	for i := range c.res.Checks {
		if c.res.Checks[i].Name == name {
			return &c.res.Checks[i]
		}
	}
	return nil
}
