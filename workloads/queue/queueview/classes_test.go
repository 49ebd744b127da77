package queueview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
)

// TestFindingOfALostMessage: the queue's stored lost cell, judged, gets a
// finding.md section of its own class with the queue's promise and the
// lost value, as a kv-update anomaly does; the clean cell gets none.
func TestFindingOfALostMessage(t *testing.T) {
	for _, tc := range []struct {
		cell, class, example string
	}{
		{"lost", "queue-lost-message", "p0-11 was acknowledged at stream sequence 11 but no consumer received it"},
		{"clean", "", ""},
	} {
		runDir := t.TempDir()
		spec, _ := json.Marshal(record.Spec{Workload: queue.Name})
		if err := os.WriteFile(filepath.Join(runDir, record.SpecFile), spec, 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(runDir, tc.cell)
		if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", tc.cell))); err != nil {
			t.Fatal(err)
		}
		c, err := queue.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		checks := queue.RunCheckers(c, 0)
		settings, _ := json.Marshal(c.Options)
		res := record.CellResult{Cell: record.Cell{Settings: settings}, Checks: checks, Verdict: record.VerdictOf(checks)}
		fs, err := findings.WriteResult(dir, res)
		if err != nil {
			t.Fatal(err)
		}
		if tc.class == "" {
			if len(fs) != 0 {
				t.Errorf("%s: findings %+v on a clean cell", tc.cell, fs)
			}
			continue
		}
		md, err := os.ReadFile(filepath.Join(dir, findings.FileName))
		if os.Getenv("SHOW_FINDING") != "" {
			t.Logf("%s", md)
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != 1 || fs[0].Class != tc.class || fs[0].Count == 0 {
			t.Fatalf("%s: findings %+v; want one %s", tc.cell, fs, tc.class)
		}
		for _, want := range []string{`<a id="` + tc.class + `"></a>`, "An acknowledged message was never delivered", "PubAck", tc.example,
			`publish {"producer":"p0","value":"p0-11","seq":11,"attempt":1}`,
			// The workload in words (describe.go), not its settings as JSON.
			"- Workload: stream `QUEUE` on `queue.>`, 3 replicas", "1 durable pull consumer with explicit ack",
			"run 2 producers publishing unique values, each with its value as `Nats-Msg-Id`"} {
			if !strings.Contains(string(md), want) {
				t.Errorf("%s: finding.md lacks %q:\n%s", tc.cell, want, md)
			}
		}
	}
}
