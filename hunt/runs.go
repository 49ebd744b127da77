package hunt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// runOne runs plan p as run n and records what it found.
func (st *State) runOne(ctx context.Context, opts Options, n int, p Plan) Record {
	args := append([]string{"--direct-get", "off", "--time-limit", st.RunTime.String(), "--seed", fmt.Sprint(st.Seed + uint64(n))},
		opts.Args...)
	args = append(args, p.Args()...)
	t := opts.Now()
	dir, exit, err := opts.Exec(ctx, filepath.Join(opts.Dir, "runs"), args)
	rec := Record{N: n, Plan: p, Exit: exit, Took: opts.Now().Sub(t)}
	if err != nil {
		rec.Error = err.Error()
	}
	if dir == "" {
		rec.Verdict = string(record.Error)
		return rec
	}
	if rel, err := filepath.Rel(opts.Dir, dir); err == nil {
		rec.Dir = rel
	}
	res, err := record.ReadResult(dir)
	if err != nil {
		rec.Verdict, rec.Error = string(record.Error), joinErr(rec.Error, err.Error())
		return rec
	}
	rec.Verdict, rec.Rerun = string(res.Verdict), res.Command
	rec.Events = map[string]int{}
	for _, c := range res.Cells {
		cellDir := filepath.Join(dir, filepath.Base(c.Dir))
		for _, ref := range findings.CellClasses(cellDir, c) {
			if !containsClass(rec.Classes, ref.Class) {
				rec.Classes = append(rec.Classes, ref.Class)
			}
		}
		if c.Watch != nil {
			for k, v := range c.Watch.Events {
				rec.Events[k] += v
			}
		}
		for _, w := range c.Faults {
			if w.NeverFired() {
				rec.NeverFired = append(rec.NeverFired, w.Trigger)
			}
		}
		if rec.Error == "" && c.Error != "" {
			rec.Error = c.Error
		}
	}
	return rec
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func containsClass(cs []string, c string) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// learn records the classes rec found for the first time, copies their
// findings, and lowers the weight of what found them.
func (st *State) learn(dir string, rec Record) []Found {
	if len(rec.Classes) == 0 || rec.Dir == "" {
		return nil
	}
	res, err := record.ReadResult(filepath.Join(dir, rec.Dir))
	if err != nil {
		return nil
	}
	var added []Found
	for _, c := range res.Cells {
		cellDir := filepath.Join(dir, rec.Dir, filepath.Base(c.Dir))
		for _, ref := range findings.CellClasses(cellDir, c) {
			if st.found(ref.Class) {
				continue
			}
			f := Found{Class: ref.Class, Title: ref.Title, Run: rec.N, After: st.Spent, Plan: rec.Plan, Rerun: rec.Rerun}
			if md, err := os.ReadFile(filepath.Join(cellDir, findings.FileName)); err == nil {
				f.Finding = filepath.Join("findings", ref.Class+".md")
				if err := writeFile(filepath.Join(dir, f.Finding), md); err != nil {
					f.Finding = ""
				}
			}
			st.Found = append(st.Found, f)
			added = append(added, f)
		}
	}
	if len(added) > 0 {
		for _, feat := range rec.Plan.Features {
			st.Weights[feat] = st.Weights.of(feat) / 2
		}
	}
	return added
}

func (st *State) found(class string) bool {
	for _, f := range st.Found {
		if f.Class == class {
			return true
		}
	}
	return false
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, b)
}

// ExecChaos is the Executor that runs this very binary's `chaos run`,
// its output in the run's log beside the store, and finds the run's
// folder by the store's latest link.
func ExecChaos(ctx context.Context, store string, args []string) (string, int, error) {
	self, err := os.Executable()
	if err != nil {
		return "", -1, err
	}
	if err := os.MkdirAll(store, 0o755); err != nil {
		return "", -1, err
	}
	before := latest(store)
	log, err := os.CreateTemp(store, "run-*.log")
	if err != nil {
		return "", -1, err
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, self, append([]string{"run", "--store", store}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // the run heals and saves on SIGINT
	cmd.WaitDelay = 3 * time.Minute
	err = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	dir := latest(store)
	if dir == before {
		return "", code, fmt.Errorf("chaos run exited %d without a run folder (its output: %s)", code, log.Name())
	}
	if _, ok := err.(*exec.ExitError); ok {
		err = nil // an exit code is a verdict
	}
	_ = os.Rename(log.Name(), filepath.Join(dir, "chaos-run.log"))
	return dir, code, err
}

// latest is the run folder store/latest points at, or "".
func latest(store string) string {
	t, err := os.Readlink(filepath.Join(store, "latest"))
	if err != nil {
		return ""
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(store, t)
	}
	return t
}
