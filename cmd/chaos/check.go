package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/run"
)

func checkCmd() *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "check DIR",
		Short: "Run the checkers again on a stored history (a cell folder, or a run folder with cells)",
		Long: `Check loads history.jsonl and stream.jsonl from a cell folder (or from every
cell of a run folder), runs every checker and prints the verdicts. It works
on partial histories of interrupted runs too. Exit codes as for run.`,
		Example: "  chaos check store/latest",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, err := cellDirs(args[0])
			if err != nil {
				return usageErr("%v", err)
			}
			worst := run.Valid
			for _, dir := range dirs {
				h, err := history.Load(dir)
				if err != nil {
					return harnessErr(err)
				}
				res := checker.Run(h, checker.All(checker.Options{OutDir: filepath.Join(dir, "porcupine"), Timeout: timeout}))
				v := run.VerdictOf(res)
				fmt.Fprintf(cmd.OutOrStdout(), "\n== %s: %s ==\n", dir, v)
				for _, c := range res {
					fmt.Fprintf(cmd.OutOrStdout(), "  %-8s %-22s %s\n", c.Verdict, c.Name, c.Summary)
				}
				worst = run.Worse(worst, v)
			}
			return &exitError{code: worst.ExitCode()}
		},
	}
	cmd.Flags().DurationVar(&timeout, "check-timeout", 60*time.Second, "time bound of the linearizability check per cell")
	return cmd
}

// cellDirs finds the cell folders under dir: dir itself if it holds a
// history, else its subfolders that do.
func cellDirs(dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, "history.jsonl")); err == nil {
		return []string{dir}, nil
	}
	matches, err := filepath.Glob(filepath.Join(dir, "*", "history.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("%s holds no history.jsonl (give a run or cell folder, e.g. store/latest)", dir)
	}
	out := make([]string, len(matches))
	for i, m := range matches {
		out[i] = filepath.Dir(m)
	}
	return out, nil
}
