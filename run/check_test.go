package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// TestStoredWorkload: the workload of a stored run is the one its run.json
// names, the default only when there is no run.json or it names none, and a
// run.json that does not decode is an error, never the default.
func TestStoredWorkload(t *testing.T) {
	cases := []struct {
		name, runJSON, want, err string
	}{
		{"no run.json", "", workloads.Default, ""},
		{"names none", `{"seed":1}`, workloads.Default, ""},
		{"names queue", `{"workload":"queue"}`, "queue", ""},
		{"malformed", `{"workload":`, "", "run.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.runJSON != "" {
				if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(c.runJSON), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := storedWorkload(dir)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one naming %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("%q, %v; want %q", got, err, c.want)
			}
		})
	}
}
