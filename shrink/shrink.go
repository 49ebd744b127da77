// Package shrink searches for a smaller run that still fails: given a
// stored failing run's command, it tries one smaller command at a time
// (one cell instead of several, a single fault instead of a list or a
// composite, half the time limit, half the clients and keys), runs each
// --runs times, and keeps it when it still fails in at least --min-rate of
// them, until no move keeps failing. Each move leaves the seed alone, so
// the fault schedule a move keeps is drawn from the same seed. The result
// is the smallest command, its failure rate and the finding of its first
// failing run: a reproduction small enough for a server unit test.
package shrink

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// Executor runs `chaos run --store STORE ARGS...` and returns the run's
// folder and exit code (hunt.ExecChaos).
type Executor func(ctx context.Context, store string, args []string) (runDir string, exit int, err error)

// Options is one search.
type Options struct {
	Args    []string // the failing run's flags, "--name=value" each
	Runs    int      // runs of each candidate
	MinRate float64  // the least failure rate a candidate keeps
	// Class is the anomaly a candidate must show to count as failing (a
	// finding class, findings.CellClasses); "" counts any anomaly that
	// --expect does not excuse. Without it a candidate that trades the
	// anomaly for a commoner one would be kept.
	Class    string
	Attempts int    // the most candidates run (the original not counted)
	Store    string // where the candidates' runs go
	Exec     Executor
	Logf     func(format string, args ...any)
}

// Attempt is one command run --runs times.
type Attempt struct {
	Move    string   `json:"move"` // "original", or what the move did
	Args    []string `json:"args"`
	Runs    int      `json:"runs"`
	Failed  int      `json:"failed"` // runs of its most failing cell that found an anomaly
	Rate    float64  `json:"failure_rate"`
	Kept    bool     `json:"kept"`
	Dir     string   `json:"dir,omitempty"`     // its run folder
	Finding string   `json:"finding,omitempty"` // finding.md of its first failing run
	Error   string   `json:"error,omitempty"`
}

// Result is a search: the original, every attempt in order, the smallest.
type Result struct {
	Class    string    `json:"class,omitempty"` // the anomaly kept (Options.Class)
	Original Attempt   `json:"original"`
	Attempts []Attempt `json:"attempts"`
	Smallest Attempt   `json:"smallest"`
	Detail   string    `json:"detail"`
}

// Search measures the original, then tries the moves of the current
// command in order, taking the first that keeps failing and starting over
// from it, until none does or the attempts run out.
func Search(ctx context.Context, o Options) Result {
	res := Result{Class: o.Class}
	res.Original = o.measure(ctx, "original", o.Args)
	res.Smallest = res.Original
	if res.Original.Rate < o.MinRate {
		res.Detail = fmt.Sprintf("the original fails %d of %d runs, below --min-rate %.2f: nothing to shrink", res.Original.Failed, res.Original.Runs, o.MinRate)
		return res
	}
	for len(res.Attempts) < o.Attempts && ctx.Err() == nil {
		kept := false
		for _, m := range Moves(res.Smallest.Args) {
			if len(res.Attempts) >= o.Attempts || ctx.Err() != nil {
				break
			}
			a := o.measure(ctx, m.Name, m.Args)
			a.Kept = a.Error == "" && a.Rate >= o.MinRate
			res.Attempts = append(res.Attempts, a)
			if a.Kept {
				res.Smallest, kept = a, true
				break
			}
		}
		if !kept {
			break
		}
	}
	switch {
	case ctx.Err() != nil:
		res.Detail = "interrupted"
	case len(res.Attempts) >= o.Attempts:
		res.Detail = fmt.Sprintf("stopped after %d attempts (--attempts)", o.Attempts)
	default:
		res.Detail = "no smaller move keeps failing"
	}
	return res
}

// measure runs args --runs times and rates the most failing cell.
func (o Options) measure(ctx context.Context, move string, args []string) Attempt {
	a := Attempt{Move: move, Args: args}
	o.logf("shrink: %s: chaos run %s (--runs %d)", move, strings.Join(args, " "), o.Runs)
	dir, _, err := o.Exec(ctx, o.Store, append(append([]string(nil), args...), fmt.Sprintf("--runs=%d", o.Runs)))
	a.Dir = dir
	if err != nil {
		a.Error = err.Error()
	}
	if dir == "" {
		return a
	}
	res, err := record.ReadResult(dir)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	if o.Class != "" {
		a.Runs, a.Failed, a.Finding = showing(dir, res, o.Class)
		if a.Runs > 0 {
			a.Rate = float64(a.Failed) / float64(a.Runs)
		}
		o.logf("shrink: %s: %d of %d runs showed %s", move, a.Failed, a.Runs, o.Class)
		return a
	}
	for _, r := range res.Repeats {
		if a.Runs == 0 || float64(r.Failed)/float64(max(r.Runs, 1)) > a.Rate {
			a.Runs, a.Failed, a.Rate = r.Runs, r.Failed, r.Rate
			if f := r.FirstFailure; f != nil {
				a.Finding = filepath.Join(f.Dir, "finding.md")
			}
		}
	}
	o.logf("shrink: %s: %d of %d runs failed", move, a.Failed, a.Runs)
	return a
}

// showing counts the runs (repeats) of a run folder and those in which a
// cell showed class, with the finding of the first.
func showing(dir string, res record.Result, class string) (runs, failed int, finding string) {
	seen, hit := map[int]bool{}, map[int]bool{}
	for _, c := range res.Cells {
		seen[c.Repeat] = true
		cellDir := filepath.Join(dir, filepath.Base(c.Dir))
		for _, ref := range findings.CellClasses(cellDir, c) {
			if ref.Class == class && !hit[c.Repeat] {
				hit[c.Repeat] = true
				if finding == "" {
					finding = filepath.Join(cellDir, findings.FileName)
				}
			}
		}
	}
	return len(seen), len(hit), finding
}

func (o Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// Stripped are the flags a search sets itself or that repeat a run, and
// --shard: a shard of a smaller matrix holds other cells, so a search
// shrinks the whole matrix.
var Stripped = map[string]bool{"--runs": true, "--until-fail": true, "--same-seed": true, "--bisect": true, "--store": true, "--commits": true, "--shard": true}

// ArgsOf turns a stored run command ("chaos run --a=b ...") into the
// flags a search starts from, without those it sets itself.
func ArgsOf(command string) ([]string, error) {
	words, err := Words(command)
	if err != nil {
		return nil, err
	}
	if len(words) < 2 || words[0] != "chaos" || words[1] != "run" {
		return nil, fmt.Errorf("the run's command %q is not a chaos run", command)
	}
	var out []string
	for _, w := range words[2:] {
		name, _, _ := strings.Cut(w, "=")
		if !Stripped[name] {
			out = append(out, w)
		}
	}
	return out, nil
}

// Words splits a command as a POSIX shell would, for the quoting a rerun
// command uses: single quotes, and '\” for a quote inside them.
func Words(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, have := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			in, have = !in, true
		case c == '\\' && !in && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			have = true
		case (c == ' ' || c == '\t') && !in:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if in {
		return nil, fmt.Errorf("unbalanced quote in %q", s)
	}
	if have {
		out = append(out, cur.String())
	}
	return out, nil
}
