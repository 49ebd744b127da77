// Package hunt runs a campaign of short runs with a time budget, each with
// a schedule drawn from a grammar (single, composite and triggered faults,
// roles, delays, workload knobs), on the chosen releases. A new anomaly
// class lowers the weight of what found it, so the campaign moves on to
// others. It keeps its state in its folder after every run, so an
// interrupted campaign resumes, and writes hunt.md: every class found, the
// run and schedule that found it, its rerun command and finding, and an
// honest account of coverage (runs made, events that fired and triggers
// that never did).
//
// Each run is `chaos run`, in a process of its own, into the campaign's
// store: a hunt is the pipeline many times, not a second pipeline.
package hunt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
)

// Options configure a campaign.
type Options struct {
	// Dir holds the campaign: hunt.json (its state), hunt.md, runs/ (the
	// runs' store) and findings/ (one finding per class).
	Dir      string
	Budget   time.Duration
	Mode     Mode
	Versions []string
	Seed     uint64
	// RunTime is each run's --time-limit.
	RunTime time.Duration
	// Args are more `chaos run` flags for every run (--runtime ...).
	Args []string
	// Supported says whether the runtime can inject a fault.
	Supported func(fault string) bool
	// Exec runs `chaos run` (ExecChaos unless a test gives another).
	Exec Executor
	Logf func(format string, args ...any)
	// Now is the clock runs are timed by (time.Now unless a test gives one).
	Now func() time.Time
}

// Executor runs `chaos run` with args into store and returns the run's
// folder and its exit code.
type Executor func(ctx context.Context, store string, args []string) (runDir string, exit int, err error)

// StateFile is the campaign's state in Options.Dir.
const StateFile = "hunt.json"

// State is what a campaign has done: enough to resume it and to report it.
type State struct {
	Mode     Mode          `json:"mode"`
	Versions []string      `json:"versions"`
	Seed     uint64        `json:"seed"`
	Budget   time.Duration `json:"budget_ns"`
	RunTime  time.Duration `json:"run_time_ns"`
	// Spent is the wall time of the runs so far.
	Spent   time.Duration `json:"spent_ns"`
	Runs    []Record      `json:"runs"`
	Found   []Found       `json:"found"`
	Weights weights       `json:"weights"`
}

// Record is one run of the campaign.
type Record struct {
	N       int            `json:"n"`
	Plan    Plan           `json:"plan"`
	Dir     string         `json:"dir,omitempty"`
	Exit    int            `json:"exit"`
	Verdict string         `json:"verdict"`
	Classes []string       `json:"classes,omitempty"`
	Events  map[string]int `json:"events,omitempty"`
	// NeverFired are the triggers armed in the run that no event fired.
	NeverFired []string      `json:"never_fired,omitempty"`
	Took       time.Duration `json:"took_ns"`
	Rerun      string        `json:"rerun,omitempty"`
	Error      string        `json:"error,omitempty"`
}

// Found is an anomaly class the campaign found, and the first run that did.
type Found struct {
	Class   string        `json:"class"`
	Title   string        `json:"title"`
	Run     int           `json:"run"`
	After   time.Duration `json:"after_ns"` // campaign time spent when it was found
	Plan    Plan          `json:"plan"`
	Rerun   string        `json:"rerun"`
	Finding string        `json:"finding,omitempty"` // findings/<class>.md, relative to Dir
}

// Run runs the campaign until its budget is spent or ctx is done, resuming
// the state in opts.Dir if there is one, and returns the state.
func Run(ctx context.Context, opts Options) (*State, error) {
	st, err := loadOrStart(opts)
	if err != nil {
		return nil, err
	}
	m := newMenu(opts.Supported)
	if len(m.faults) == 0 {
		return st, errors.New("hunt: the runtime can inject none of the faults the grammar draws from")
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	for ctx.Err() == nil && st.Spent < st.Budget && !st.lastRunWouldOverrun() {
		n := len(st.Runs) + 1
		r := rand.New(rand.NewPCG(st.Seed, uint64(n)))
		p := m.plan(r, st.Weights, st.Mode, st.Versions[(n-1)%len(st.Versions)])
		logf("hunt: run %d (%s spent of %s): --nemesis %q %v", n, st.Spent.Round(time.Second), st.Budget, p.Nemesis, p.Knobs)
		rec := st.runOne(ctx, opts, n, p)
		if ctx.Err() != nil && rec.Exit == 130 {
			break // interrupted: the run does not count, the campaign resumes it
		}
		st.Runs = append(st.Runs, rec)
		st.Spent += rec.Took
		for _, f := range st.learn(opts.Dir, rec) {
			logf("hunt: NEW CLASS %s (%s) in run %d", f.Class, f.Title, n)
		}
		if err := st.save(opts.Dir); err != nil {
			return st, err
		}
		if err := WriteReport(opts.Dir, st); err != nil {
			return st, err
		}
	}
	return st, ctx.Err()
}

// lastRunWouldOverrun says whether a run as long as the longest so far
// would end past the budget by more than half of it.
func (st *State) lastRunWouldOverrun() bool {
	var longest time.Duration
	for _, r := range st.Runs {
		longest = max(longest, r.Took)
	}
	return st.Spent+longest/2 > st.Budget
}

// loadOrStart resumes the campaign in opts.Dir, or starts one.
func loadOrStart(opts Options) (*State, error) {
	b, err := os.ReadFile(filepath.Join(opts.Dir, StateFile))
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
			return nil, err
		}
		return &State{Mode: opts.Mode, Versions: opts.Versions, Seed: opts.Seed, Budget: opts.Budget,
			RunTime: opts.RunTime, Weights: weights{}}, nil
	}
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(opts.Dir, StateFile), err)
	}
	if st.Mode != opts.Mode || st.Seed != opts.Seed {
		return nil, fmt.Errorf("%s holds a campaign of %s schedules with seed %d: resume it with --schedules %s --seed %d, or give another --store",
			opts.Dir, st.Mode, st.Seed, st.Mode, st.Seed)
	}
	st.Budget = opts.Budget // a resumed campaign may be given more time
	if st.Weights == nil {
		st.Weights = weights{}
	}
	return &st, nil
}

func (st *State) save(dir string) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, StateFile), append(b, '\n'))
}
