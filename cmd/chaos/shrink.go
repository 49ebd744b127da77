package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/hunt"
	"github.com/jetstream-chaos/jetstream-chaos/internal/atomicfile"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/shrink"
)

func shrinkCmd() *cobra.Command {
	var (
		runs, attempts int
		minRate        float64
		class          string
	)
	cmd := &cobra.Command{
		Use:   "shrink RUN_DIR",
		Short: "Search for a smaller run that still fails: fewer cells, a single fault, less time, fewer clients and keys",
		Long: `Shrink takes a stored failing run and tries smaller commands one step at a
time: one cell of several (a Direct Get setting, a release, a --nemesis),
a single fault in place of a list or a composite, half the time limit, half
the clients and keys. Each candidate runs --runs times with the run's seed;
one that still shows the anomaly in at least --min-rate of them is kept
and shrunk further. The anomaly is --class, by default the first class
the run's findings name (a candidate that trades it for another anomaly
is not kept). The smallest command, its failure rate and the finding of its
first failing run are printed and stored in RUN_DIR/shrink/ (shrink.json,
shrink.md; the candidates' runs in RUN_DIR/shrink/runs).

Exit codes: 0 searched (the smallest command still fails), 2 the run no
longer fails in --min-rate of --runs (nothing to shrink), 3 usage error,
4 harness error, 130 interrupted.`,
		Example: "  chaos shrink store/20261201T162252Z-s18 --runs 3 --min-rate 0.67",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case runs < 1:
				return usageErr("--runs %d: want 1 or more", runs)
			case minRate <= 0 || minRate > 1:
				return usageErr("--min-rate %g: want more than 0, at most 1", minRate)
			case attempts < 1:
				return usageErr("--attempts %d: want 1 or more", attempts)
			}
			dir := args[0]
			res, err := record.ReadResult(dir)
			if err != nil {
				return usageErr("%s: %v", dir, err)
			}
			flags, err := record.ArgsOf(res.Command)
			if err != nil {
				return usageErr("%s: %v", dir, err)
			}
			out := cmd.OutOrStdout()
			classes := runClasses(dir, res)
			switch {
			case class == "" && len(classes) == 0:
				fmt.Fprintln(out, "shrink: the run's cells name no anomaly class: a candidate fails on any anomaly --expect does not excuse")
			case class == "":
				class = classes[0]
				fmt.Fprintf(out, "shrink: keeping the anomaly %s (the run's first; --class picks another of: %s)\n", class, strings.Join(classes, ", "))
			}
			ctx, stop := interruptible("stopping after the candidate in progress")
			defer stop()
			s := shrink.Search(ctx, shrink.Options{Args: flags, Runs: runs, MinRate: minRate, Attempts: attempts, Class: class,
				Store: filepath.Join(dir, "shrink", "runs"), Exec: hunt.ExecChaos,
				Logf: func(format string, a ...any) { fmt.Fprintf(out, format+"\n", a...) }})
			if err := writeShrink(filepath.Join(dir, "shrink"), s); err != nil {
				return harnessErr(err)
			}
			fmt.Fprintf(out, "\n%s\n", shrinkWords(s))
			if s.Smallest.Rate >= minRate && class != "" {
				fmt.Fprintf(out, "as a go test (package chaostest), failing while it shows:\n\n%s\n", findings.GoTestOf(class, s.Smallest.Args))
			}
			switch {
			case ctx.Err() != nil:
				return &exitError{code: record.ExitInterrupted}
			case s.Original.Error != "" && s.Original.Runs == 0:
				return harnessErr(fmt.Errorf("the original run: %s", s.Original.Error))
			case s.Original.Rate < minRate:
				return &exitError{code: record.ExitUnknown}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&runs, "runs", 3, "runs of each candidate")
	fl.Float64Var(&minRate, "min-rate", 0.5, "the least share of --runs a candidate must fail in to be kept")
	fl.IntVar(&attempts, "attempts", 12, "the most candidates to run")
	fl.StringVar(&class, "class", "", "the anomaly class a candidate must show (a finding class, e.g. kv-lost-write); default: the first the run's findings name")
	return cmd
}

// runClasses are the anomaly classes of a stored run's invalid cells, in
// order, each once.
func runClasses(dir string, res record.Result) []string {
	var out []string
	for _, c := range res.Cells {
		if c.Verdict != record.Invalid {
			continue
		}
		for _, ref := range findings.CellClasses(filepath.Join(dir, filepath.Base(c.Dir)), c) {
			if !slices.Contains(out, ref.Class) {
				out = append(out, ref.Class)
			}
		}
	}
	return out
}

// commandOf is a candidate's flags as a command.
func commandOf(args []string) string {
	parts := []string{"chaos", "run"}
	for _, a := range args {
		name, v, _ := strings.Cut(a, "=")
		parts = append(parts, name+"="+record.ShellQuote(v))
	}
	return strings.Join(parts, " ")
}

// shrinkWords is the search in words: the original, every attempt, the
// smallest command with its rate and finding.
func shrinkWords(s shrink.Result) string {
	var b strings.Builder
	failed := "runs failed"
	if s.Class != "" {
		failed = "runs showed " + s.Class
	}
	fmt.Fprintf(&b, "original: %d of %d %s: %s\n", s.Original.Failed, s.Original.Runs, failed, commandOf(s.Original.Args))
	for _, a := range s.Attempts {
		word := "dropped"
		if a.Kept {
			word = "kept"
		}
		fmt.Fprintf(&b, "  %-7s %s: %d of %d %s\n", word, a.Move, a.Failed, a.Runs, failed)
	}
	fmt.Fprintf(&b, "%s\n", s.Detail)
	fmt.Fprintf(&b, "smallest: %d of %d %s: %s\n", s.Smallest.Failed, s.Smallest.Runs, failed, commandOf(s.Smallest.Args))
	if s.Smallest.Finding != "" {
		fmt.Fprintf(&b, "finding: %s\n", s.Smallest.Finding)
	}
	return b.String()
}

func writeShrink(dir string, s shrink.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	j, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, "shrink.json"), append(j, '\n')); err != nil {
		return err
	}
	md := "# Shrink\n\n```\n" + shrinkWords(s) + "```\n"
	if s.Class != "" && s.Smallest.Rate > 0 {
		md += "\nAs a go test (package chaostest), failing while it shows:\n\n```go\n" + findings.GoTestOf(s.Class, s.Smallest.Args) + "```\n"
	}
	return atomicfile.Write(filepath.Join(dir, "shrink.md"), []byte(md))
}
