package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLines: what WriteLines writes ReadLines reads back; a missing file
// is none; a bad line is named.
func TestLines(t *testing.T) {
	type rec struct {
		A string `json:"a"`
		N int    `json:"n"`
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.jsonl")
	in := []rec{{"x", 1}, {"y", 2}}
	if err := WriteLines(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadLines[rec](path)
	if err != nil || len(out) != 2 || out[1] != in[1] {
		t.Fatalf("%+v %v", out, err)
	}
	if none, err := ReadLines[rec](filepath.Join(dir, "none.jsonl")); none != nil || err != nil {
		t.Fatalf("missing file: %v %v", none, err)
	}
	if err := os.WriteFile(path, []byte("{\"a\":\"x\"}\n{bad\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLines[rec](path); err == nil || !strings.Contains(err.Error(), "x.jsonl:2:") {
		t.Fatalf("bad line: %v", err)
	}
}
