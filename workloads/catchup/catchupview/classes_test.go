package catchupview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
)

// TestFindingOfACrashLoop: a catch-up cell whose target was OOM-killed
// into a crash loop gets finding.md sections of the catch-up's own
// classes, crash loop first, each with its promise; a clean cell none.
func TestFindingOfACrashLoop(t *testing.T) {
	loop, rloop := mkCatchupCell(cuOpts{version: "v2.11.8", limit: 160 << 20, oomKills: 3, crashLoop: true, outcome: "crash-loop"})
	clean, rclean := mkCatchupCell(cuOpts{limit: 1536 << 20})
	loop.Settings, _ = json.Marshal(rloop.Options) // as the pipeline records it
	dir := writeCatchupRun(t, catchupRunOf(loop, clean), rloop, rclean)
	got, err := findings.WriteRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	var loopCell, cleanCell []findings.Finding
	for name, fs := range got {
		if strings.Contains(name, "v2.11.8") {
			loopCell = fs
		} else {
			cleanCell = fs
		}
	}
	var classes []string
	for _, f := range loopCell {
		classes = append(classes, f.Class)
	}
	if len(classes) < 2 || classes[0] != "catch-up-crash-loop" || !strings.Contains(strings.Join(classes, " "), "catch-up-oom-kill") {
		t.Fatalf("crash-loop cell: classes %v; want catch-up-crash-loop first, and catch-up-oom-kill", classes)
	}
	if len(cleanCell) != 0 {
		t.Errorf("clean cell: findings %+v", cleanCell)
	}
	for name := range got {
		if !strings.Contains(name, "v2.11.8") {
			continue
		}
		md, err := os.ReadFile(filepath.Join(dir, name, findings.FileName))
		if err != nil {
			t.Fatal(err)
		}
		if os.Getenv("SHOW_FINDING") != "" {
			t.Logf("%s", md)
		}
		for _, want := range []string{"A replica catching up a stream died again and again", "`runCatchup` limits the bytes in flight",
			// The workload in words (describe.go), not its settings as JSON.
			"- Workload: stream `CATCHUP`, 3 replicas, file storage", "start it again under a hard memory limit of 160MiB",
			"nodes with the configuration above; create a stream with 3 replicas"} {
			if !strings.Contains(string(md), want) {
				t.Errorf("finding.md lacks %q", want)
			}
		}
	}
}
