package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/run"
)

func checkCmd() *cobra.Command {
	var timeout time.Duration
	var expect []string
	cmd := &cobra.Command{
		Use:   "check DIR",
		Short: "Run the checkers again on a stored cell (a cell folder, or a run folder with cells)",
		Long: `Check judges a stored cell again from its files alone (history.jsonl and the
workload's own files: stream.jsonl for kv-update, catchup.json for catchup),
with the checkers of the workload its run.json names (or, for a cell copied
out of its run folder, its own results.json; when neither names one, the
heading says kv-update was assumed), and prints the verdicts. It works on partial histories of interrupted runs too, and gives
the same verdict as the run. Exit codes as for run.`,
		Example: "  chaos check store/latest",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, err := cellDirs(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			exps, err := checkExpects(args[0], expect)
			if err != nil {
				return usageErr("%v", err)
			}
			used := make([]bool, len(exps))
			worst := record.Valid
			for _, dir := range dirs {
				if why := neverRan(dir); why != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "\n== %s: %s (not judged: the cell never ran: %s) ==\n", dir, record.Error, why)
					worst = record.Worse(worst, record.Error)
					continue
				}
				name, res, err := run.Recheck(dir, checker.Options{OutDir: filepath.Join(dir, "porcupine"), Timeout: timeout})
				if err != nil {
					return harnessErr(err)
				}
				v := record.VerdictOf(res)
				j := record.Judge(record.CellResult{Cell: record.Cell{Name: filepath.Base(dir)}, Checks: res, Verdict: v}, exps)
				heading := string(v)
				if j.Verdict != v {
					heading += fmt.Sprintf(", %s under --expect", j.Verdict)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "\n== %s (%s): %s ==\n", dir, name, heading)
				for _, c := range j.Checks {
					fmt.Fprintf(cmd.OutOrStdout(), "  %-8s %-22s %s\n", c.Verdict, c.Name, c.Summary)
					if c.Note != "" {
						fmt.Fprintf(cmd.OutOrStdout(), "           %s\n", c.Note)
					}
				}
				for i, e := range exps {
					used[i] = used[i] || slices.Contains(j.Expected, e)
				}
				worst = record.Worse(worst, j.Verdict)
			}
			if across := run.RecheckRun(args[0], dirs); len(across) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "\n== %s, across cells ==\n", args[0])
				for _, c := range across {
					fmt.Fprintf(cmd.OutOrStdout(), "  %-8s %-22s %s\n", c.Verdict, c.Name, c.Summary)
				}
				worst = record.Worse(worst, record.VerdictOf(across))
			}
			for i, e := range exps {
				if !used[i] {
					fmt.Fprintf(cmd.OutOrStdout(), "\n--expect %s matched no cell checked\n", e)
					worst = record.Worse(worst, record.Error)
				}
			}
			return &exitError{code: worst.ExitCode()}
		},
	}
	cmd.Flags().DurationVar(&timeout, "check-timeout", 60*time.Second, "time bound of the linearizability check per cell")
	cmd.Flags().StringArrayVar(&expect, "expect", nil, "a known anomaly kept as a positive control, CELLS=ANOMALY (added to those the run recorded)")
	return cmd
}

// cellDirs finds the cell folders under dir: dir itself if it holds a
// cell (a history, or a cell's results.json), else its subfolders that do.
func cellDirs(dir string) ([]string, error) {
	isCell := func(d string) bool {
		for _, f := range []string{"history.jsonl", record.ResultFile} {
			if _, err := os.Stat(filepath.Join(d, f)); err == nil && (f == "history.jsonl" || !isRun(d)) {
				return true
			}
		}
		return false
	}
	if isCell(dir) {
		return []string{dir}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s holds no history.jsonl (give a run or cell folder, e.g. store/latest)", dir)
	}
	var out []string
	for _, e := range entries {
		if sub := filepath.Join(dir, e.Name()); e.IsDir() && isCell(sub) {
			out = append(out, sub)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no history.jsonl (give a run or cell folder, e.g. store/latest)", dir)
	}
	return out, nil
}

// checkExpects are the known anomalies the run kept (its run.json's
// --expect, when dir is a run folder or a cell in one) and those given,
// so a check gives the verdict the run gave.
func checkExpects(dir string, given []string) ([]record.Expectation, error) {
	var spec struct {
		Expect []string `json:"expect"`
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if b, err := os.ReadFile(filepath.Join(d, record.SpecFile)); err == nil {
			if err := json.Unmarshal(b, &spec); err != nil {
				return nil, fmt.Errorf("%s: %v", filepath.Join(d, record.SpecFile), err)
			}
			break
		}
	}
	return record.ParseExpects(append(spec.Expect, given...))
}

// isRun says whether d is a run folder (it has run.json).
func isRun(d string) bool {
	_, err := os.Stat(filepath.Join(d, record.SpecFile))
	return err == nil
}

// neverRan is the error a cell without a history stored in its
// results.json (its cluster never started, say), or "" for a cell that ran:
// a run with such a cell is checked cell by cell all the same.
func neverRan(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "history.jsonl")); err == nil {
		return ""
	}
	var res struct {
		Error string `json:"error"`
	}
	b, err := os.ReadFile(filepath.Join(dir, record.ResultFile))
	if err != nil || json.Unmarshal(b, &res) != nil {
		return ""
	}
	line, _, _ := strings.Cut(res.Error, "\n")
	return line
}
