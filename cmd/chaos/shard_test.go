package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
)

// The acceptance of --shard at the command line: the two shards of a
// stored matrix, merged by chaos report --merge, report the cells,
// verdicts and exit code the unsharded run reports.
func TestReportMergeOfShardsIsTheUnshardedRun(t *testing.T) {
	whole := reportstest.SyntheticMatrix() // every verdict: invalid, valid, error, unknown
	root := t.TempDir()
	wholeCode, wholeOut, stderr := chaos(t, root, "report", reportstest.WriteRun(t, whole))
	if wholeCode != record.ExitInvalid {
		t.Fatalf("unsharded report exit %d: %s", wholeCode, stderr)
	}
	var shards []string
	for i := 1; i <= 2; i++ {
		s := whole
		s.Res.Spec.Shard = &record.Shard{Index: i, Count: 2}
		s.Res.Spec.Command = strings.Replace(s.Res.Spec.Command, " --seed=", fmt.Sprintf(" --shard=%d/2 --seed=", i), 1)
		s.Res.ID += fmt.Sprintf("-shard%d", i)
		s.Res.Cells, s.Cells = nil, nil
		s.Res.Verdict = record.Valid
		mine := map[string]bool{}
		for _, c := range s.Res.Spec.Cells() {
			mine[c.Name] = true
		}
		for _, c := range whole.Cells {
			if mine[c.Res.Name] {
				s.Cells = append(s.Cells, c)
				s.Res.Cells = append(s.Res.Cells, c.Res)
				s.Res.Verdict = record.Worse(s.Res.Verdict, c.Res.Verdict)
			}
		}
		if len(s.Cells) != 2 {
			t.Fatalf("shard %d/2 holds %d of the 4 cells", i, len(s.Cells))
		}
		shards = append(shards, reportstest.WriteRun(t, s))
	}
	// A shard's own report is of its cells: the others are not "not run".
	if code, _, stderr := chaos(t, root, "report", shards[0]); code != record.ExitInvalid {
		t.Errorf("shard 1/2's report exit %d: %s", code, stderr)
	}
	page, _ := os.ReadFile(filepath.Join(shards[0], "report.html"))
	junit, _ := os.ReadFile(filepath.Join(shards[0], "junit.xml"))
	if !strings.Contains(string(page), "1/2: 2 of the matrix") || strings.Contains(string(junit), "not run") || !strings.Contains(string(junit), "<testcase") {
		t.Errorf("shard 1/2's report.html does not name the shard, or its junit.xml counts the other shard's cells:\n%s", junit)
	}
	code, out, stderr := chaos(t, root, append([]string{"report", "--merge", "--store", "merged"}, shards...)...)
	if code != wholeCode {
		t.Fatalf("merged exit %d, unsharded %d\n%s\n%s", code, wholeCode, out, stderr)
	}
	if headline(out) != headline(wholeOut) || !strings.Contains(out, "merged 2 shard folders into merged/") {
		t.Errorf("merged says\n%s\nunsharded says\n%s", out, wholeOut)
	}
	merged, err := record.ReadResult(filepath.Join(root, "merged", "latest"))
	if err != nil {
		t.Fatal(err)
	}
	if len(merged.Cells) != len(whole.Res.Cells) || merged.Verdict != whole.Res.Verdict || merged.Spec.Shard != nil {
		t.Fatalf("merged %d cells %s shard %v; unsharded %d %s", len(merged.Cells), merged.Verdict, merged.Spec.Shard, len(whole.Res.Cells), whole.Res.Verdict)
	}
	for i, c := range merged.Cells {
		w := whole.Res.Cells[i]
		if c.Name != w.Name || c.Verdict != w.Verdict {
			t.Errorf("cell %d: %s %s; unsharded %s %s", i, c.Name, c.Verdict, w.Name, w.Verdict)
		}
		if _, err := os.Stat(filepath.Join(c.Dir, "logs", "n1.log")); err != nil {
			t.Errorf("%s's files were not copied: %v", c.Name, err)
		}
	}
	junit, err = os.ReadFile(filepath.Join(root, "merged", "latest", "junit.xml"))
	if err != nil || strings.Contains(string(junit), "not run") || strings.Count(string(junit), "<testcase") < 4 {
		t.Errorf("junit.xml (%v):\n%s", err, junit)
	}
}

// headline is the verdict line of a report's output.
func headline(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "merged ") && !strings.HasPrefix(l, "report:") && !strings.HasPrefix(l, "junit:") && !strings.HasPrefix(l, "finding:") && l != "" {
			return l
		}
	}
	return ""
}

// A shard with none of the matrix's cells says so, stores nothing and
// exits 0, before it builds or starts anything.
func TestEmptyShardRunsNothing(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := chaos(t, dir, "run", "--runtime", "local", "--direct-get", "off", "--shard", "2/2", "--seed", "5")
	if code != 0 || !strings.Contains(out, "shard 2/2: none of the matrix's 1 cells and runs is this shard's; nothing to run") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "store")); err == nil {
		t.Errorf("an empty shard created a store")
	}
}
