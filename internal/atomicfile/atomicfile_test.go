package atomicfile

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := Write(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	st, _ := os.Stat(path)
	if err != nil || string(b) != "new\n" || st.Mode().Perm() != 0o644 {
		t.Fatalf("after two writes: %q, %v, mode %v", b, err, st.Mode())
	}

	// A writer that fails half way leaves the old file and no temp file.
	boom := errors.New("boom")
	err = WriteWith(path, func(w *bufio.Writer) error {
		w.WriteString("half")
		return boom
	})
	b, _ = os.ReadFile(path)
	if !errors.Is(err, boom) || string(b) != "new\n" {
		t.Errorf("a failed write: %v, file %q", err, b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries after a failed write, want the file alone", len(entries))
	}

	if err := Write(filepath.Join(dir, "no", "such", "dir"), nil); err == nil {
		t.Error("a write into a missing folder succeeded")
	}
}

// ReadJSON reads back what WriteJSON wrote, says ok false for no file,
// and names a file that does not decode.
func TestJSONRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.json")
	var got map[string]int
	if ok, err := ReadJSON(path, &got); ok || err != nil {
		t.Fatalf("no file: ok %v, err %v", ok, err)
	}
	if err := WriteJSON(path, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if ok, err := ReadJSON(path, &got); !ok || err != nil || got["a"] != 1 {
		t.Fatalf("ok %v, err %v, got %v", ok, err, got)
	}
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, err := ReadJSON(path, &got); !ok || err == nil {
		t.Fatalf("a torn file: ok %v, err %v", ok, err)
	}
}
