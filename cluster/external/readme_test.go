package external

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEHooksParseAndAreShell: every single-quoted --fault-hook of the
// README's examples parses, fills, and is valid sh (sh -n: read, not run),
// and the Chaos Mesh manifest keeps its braces.
func TestREADMEHooksParseAndAreShell(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	found := regexp.MustCompile(`(?s)--fault-hook ([a-z]+)='([^']*)'`).FindAllStringSubmatch(string(b), -1)
	if len(found) < 5 {
		t.Fatalf("found %d hooks in the README", len(found))
	}
	vars := map[string]string{"node": "nats-1", "index": "1", "all": "nats-0 nats-1 nats-2",
		"nodes": "nats-2", "nodes_csv": "nats-2", "others": "nats-0 nats-1", "others_csv": "nats-0,nats-1", "groups": "nats-0,nats-1 nats-2"}
	for _, m := range found {
		h, err := ParseHooks([]string{m[1] + "=" + m[2]})
		if err != nil {
			t.Errorf("README hook %s: %v", m[1], err)
			continue
		}
		line, err := fill(h[m[1]], vars)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("sh", "-n", "-c", line).CombinedOutput(); err != nil {
			t.Errorf("README hook %s is not valid sh: %v %s\n%s", m[1], err, out, line)
		}
		if m[1] == "partition" {
			if !strings.Contains(line, "pods: {nats: [nats-2]}}") || !strings.Contains(line, "pods: {nats: [nats-0,nats-1]}}") ||
				strings.Count(line, "{") != strings.Count(line, "}") {
				t.Errorf("the Chaos Mesh manifest as filled:\n%s", line)
			}
		}
	}
}
