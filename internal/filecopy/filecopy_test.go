package filecopy

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNew(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	if err := os.WriteFile(src, []byte("bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := New(src, dst, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dst)
	if err != nil || string(b) != "bytes" {
		t.Errorf("copy holds %q, %v; want %q", b, err, "bytes")
	}
	if fi, err := os.Stat(dst); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("copy's mode %v, %v; want 0755", fi.Mode(), err)
	}
	for _, tc := range []struct{ name, src, dst string }{
		{"dst exists", src, dst},
		{"no src", filepath.Join(dir, "none"), filepath.Join(dir, "other")},
	} {
		if err := New(tc.src, tc.dst, 0o644); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}
