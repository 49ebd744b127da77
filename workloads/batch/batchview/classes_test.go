package batchview

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
	"github.com/jetstream-chaos/jetstream-chaos/workloads/batch"
)

// A stored cell whose acknowledged batch of three lost its middle message,
// judged, gets a finding.md section of its own class with ADR-50's promise,
// the batch, and the workload in words; the same cell with the batch whole
// gets none.
func TestFindingOfABatchStoredInPart(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stored []batch.Stored
		class  string
	}{
		{"partial", []batch.Stored{{Seq: 1, Batch: "p0-1", Index: 1}, {Seq: 3, Batch: "p0-1", Index: 3}}, "batch-stored-in-part"},
		{"whole", []batch.Stored{{Seq: 1, Batch: "p0-1", Index: 1}, {Seq: 2, Batch: "p0-1", Index: 2}, {Seq: 3, Batch: "p0-1", Index: 3}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runDir := t.TempDir()
			spec, _ := json.Marshal(record.Spec{Workload: batch.Name})
			if err := os.WriteFile(filepath.Join(runDir, record.SpecFile), spec, 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(runDir, "cell")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			op := batch.BatchOp(batch.Batch{ID: "p0-1", Kind: batch.KindCommit, Size: 3, Outcome: history.OK, AckSeq: 3}, "")
			op.Invoke, op.Complete = 1, 2
			if err := history.WriteLines(filepath.Join(dir, "history.jsonl"), []history.Op{op}); err != nil {
				t.Fatal(err)
			}
			rb, _ := json.Marshal(batch.ReadBack{Msgs: tc.stored, Complete: true, LastSeq: 3})
			if err := os.WriteFile(filepath.Join(dir, batch.ReadBackFile), rb, 0o644); err != nil {
				t.Fatal(err)
			}
			checks, err := batch.Check(dir, checker.Options{})
			if err != nil {
				t.Fatal(err)
			}
			settings, _ := json.Marshal(batch.Defaults)
			res := record.CellResult{Cell: record.Cell{Settings: settings, DirectGet: true}, Checks: checks, Verdict: record.VerdictOf(checks)}
			fs, err := findings.WriteResult(dir, res)
			if err != nil {
				t.Fatal(err)
			}
			if tc.class == "" {
				if len(fs) != 0 {
					t.Errorf("findings %+v on a whole batch", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Class != tc.class || fs[0].Count != 1 {
				t.Fatalf("findings %+v; want one %s", fs, tc.class)
			}
			md, err := os.ReadFile(filepath.Join(dir, findings.FileName))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`<a id="` + tc.class + `"></a>`, "An atomic batch is stored in part", "AllowAtomicPublish",
				"p0-1", "missing message 2",
				"- Workload: stream `BATCH` on `BATCH.>`, 3 replicas", "publishing atomic batches of 10 messages",
				"create stream `BATCH` (subjects `BATCH.>`, 3 replicas, `allow_atomic: true`, `allow_direct: true`)"} {
				if !strings.Contains(string(md), want) {
					t.Errorf("finding.md lacks %q:\n%s", want, md)
				}
			}
		})
	}
}

// Every class names a check of the workload and a kind it flags, and no
// kind the checks flag is left without a class: the kinds are read from
// the checks' source, so a kind added there fails here until it has one.
func TestEveryFlaggedKindHasAClass(t *testing.T) {
	flagged := map[string]bool{}
	for _, f := range []string{"check_atomic.go", "check_isolation.go", "check_snapshot.go"} {
		src, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			for _, call := range []string{`flag("`, `Flag("`, `snapFlag("`} {
				if i := strings.Index(line, call); i >= 0 {
					rest := line[i+len(call):]
					flagged[rest[:strings.Index(rest, `"`)]] = true
				}
			}
		}
	}
	classed := map[string]bool{}
	for _, c := range findings.Classes() {
		if c.Check == batch.CheckAtomic || c.Check == batch.CheckIsolation {
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
	if len(flagged) < 10 {
		t.Errorf("read only %d kinds from the checks: %v", len(flagged), flagged)
	}
}
