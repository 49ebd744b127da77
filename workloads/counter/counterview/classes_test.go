package counterview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/counter"
)

// A stored cell whose counter is one add short of its acknowledged adds
// gets a finding.md section of its own class with ADR-49's promise, the
// difference, and the workload in words; the same cell with the total
// right gets none.
func TestFindingOfACounterOff(t *testing.T) {
	for _, tc := range []struct {
		final int64
		class string
	}{{2, "counter-total-off"}, {3, ""}} {
		runDir := t.TempDir()
		spec, _ := json.Marshal(record.Spec{Workload: counter.Name})
		if err := os.WriteFile(filepath.Join(runDir, record.SpecFile), spec, 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(runDir, "cell")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var ops []history.Op
		for i := range 3 {
			op := counter.AddOp(counter.Add{ID: "0." + string(rune('1'+i)), Counter: "COUNTER.c0", Delta: 1, Outcome: history.OK,
				Total: int64(i + 1), Told: true, Attempts: 1})
			op.Invoke, op.Complete = int64(10*i+1), int64(10*i+2)
			ops = append(ops, op)
		}
		if err := history.WriteLines(filepath.Join(dir, "history.jsonl"), ops); err != nil {
			t.Fatal(err)
		}
		f, _ := json.Marshal(counter.Final{Values: map[string]int64{"COUNTER.c0": tc.final}, Complete: true})
		if err := os.WriteFile(filepath.Join(dir, counter.FinalFile), f, 0o644); err != nil {
			t.Fatal(err)
		}
		checks, err := counter.Check(dir, checker.Options{})
		if err != nil {
			t.Fatal(err)
		}
		settings, _ := json.Marshal(counter.Defaults)
		res := record.CellResult{Cell: record.Cell{Settings: settings}, Checks: checks, Verdict: record.VerdictOf(checks)}
		fs, err := findings.WriteResult(dir, res)
		if err != nil {
			t.Fatal(err)
		}
		if tc.class == "" {
			if len(fs) != 0 {
				t.Errorf("findings %+v with the total right", fs)
			}
			continue
		}
		if len(fs) != 1 || fs[0].Class != tc.class {
			t.Fatalf("findings %+v; want one %s", fs, tc.class)
		}
		md, _ := os.ReadFile(filepath.Join(dir, findings.FileName))
		for _, want := range []string{"A counter's total is not the sum of the adds made to it", "AllowMsgCounter",
			"counter COUNTER.c0 is 2; its 3 acknowledged adds sum to 3: -1 off", "-1 adds of 1",
			"- Workload: stream `COUNTER` on `COUNTER.>`, 3 replicas", "adding positive deltas of at most 10 to 3 counters",
			"create stream `COUNTER` (subjects `COUNTER.>`, 3 replicas, `allow_msg_counter: true`, `allow_direct: false`)"} {
			if !strings.Contains(string(md), want) {
				t.Errorf("finding.md lacks %q:\n%s", want, md)
			}
		}
	}
}

// Every class names a kind its check flags, and every kind the checks flag
// has a class: the kinds are read from the checks' source.
func TestEveryFlaggedKindHasAClass(t *testing.T) {
	flagged := map[string]bool{}
	for _, f := range []string{"check_total.go", "check_reads.go"} {
		src, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			for _, call := range []string{`Flag("`, `judgeRead(b, "`} {
				if i := strings.Index(line, call); i >= 0 {
					rest := line[i+len(call):]
					flagged[rest[:strings.Index(rest, `"`)]] = true
				}
			}
		}
	}
	classed := map[string]bool{}
	for _, c := range findings.Classes() {
		if c.Check == counter.CheckTotal || c.Check == counter.CheckDedupe || c.Check == counter.CheckReads {
			classed[c.Kind] = true
		}
	}
	for k := range flagged {
		if !classed[k] {
			t.Errorf("kind %q is flagged but has no finding class", k)
		}
	}
	for k := range classed {
		if !flagged[k] {
			t.Errorf("class of kind %q, which no check flags", k)
		}
	}
	if len(flagged) != 7 {
		t.Errorf("read %d kinds from the checks: %v", len(flagged), flagged)
	}
}
