package kvupdate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// The cells in testdata/cells are stored kv-update cells (history 1, with
// deletes and creates), judged from their files as `chaos check` does.
func TestCheckDirCells(t *testing.T) {
	cases := []struct {
		cell     string
		invalid  map[string]bool
		contains string // in the divergence summary
	}{
		{"clean", nil, "all 3 replicas hold the same 2 messages"},
		{"diverged", map[string]bool{checker.NameDivergence: true}, "n2 from seq 5"},
	}
	for _, c := range cases {
		t.Run(c.cell, func(t *testing.T) {
			results, err := CheckDir(filepath.Join("testdata", "cells", c.cell), checker.Options{MaxVisualizations: -1})
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, r := range results {
				names[r.Name] = true
				want := checker.Valid
				if c.invalid[r.Name] {
					want = checker.Invalid
				}
				if r.Verdict != want {
					t.Errorf("%s: %s (%s %s), want %s", r.Name, r.Verdict, r.Summary, r.Reason, want)
				}
				if r.Name == checker.NameDivergence && !strings.Contains(r.Summary, c.contains) {
					t.Errorf("divergence summary %q lacks %q", r.Summary, c.contains)
				}
			}
			for _, n := range []string{checker.NameIntegrity, checker.NameRetention, checker.NameDeletes, checker.NameDivergence, checker.NameLinearizability} {
				if !names[n] {
					t.Errorf("no %s result", n)
				}
			}
		})
	}
}

// A cell whose observers were never drained (interrupted) and whose
// bucket keeps one revision cannot vouch for lost writes: unknown, never
// valid.
func TestCheckDirWithoutObservedIsUnknown(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "cells", "clean")
	for _, f := range []string{"history.jsonl", "stream.jsonl", BucketFile} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	results, err := CheckDir(dir, checker.Options{MaxVisualizations: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if (r.Name == checker.NameIntegrity || r.Name == checker.NameDivergence) && r.Verdict != checker.Unknown {
			t.Errorf("%s: %s (%s), want unknown", r.Name, r.Verdict, r.Summary)
		}
	}
}

// copyCell copies a cell of testdata/cells into a new folder.
func copyCell(t *testing.T, cell string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", "cells", cell)
	files, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A read-back cut short in its last line did not finish: the read-back
// check is unknown and says so, whole and in parts; the stream the
// observers completed is still judged; a line cut short before the last
// is an error (audit cell kv/b4_truncated_last_line).
func TestCheckDirTornReadBack(t *testing.T) {
	dir := copyCell(t, "clean")
	path := filepath.Join(dir, "stream.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	torn := b[:len(b)-12]
	if err := os.WriteFile(path, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, partOps := range []int{-1, 4} {
		results, err := CheckDir(dir, checker.Options{PartOps: partOps, MaxVisualizations: -1})
		if err != nil {
			t.Fatalf("PartOps %d: %v", partOps, err)
		}
		for _, r := range results {
			want := checker.Valid
			if r.Name == checker.NameRetention {
				want = checker.Unknown
				if !strings.Contains(r.Reason, "stream.jsonl is cut short at line 3: the read-back did not finish") {
					t.Errorf("PartOps %d: read-back reason %q does not say the file is cut short", partOps, r.Reason)
				}
			}
			if r.Verdict != want {
				t.Errorf("PartOps %d: %s %s (%s), want %s", partOps, r.Name, r.Verdict, r.Summary, want)
			}
		}
	}
	if err := os.WriteFile(path, append(append([]byte{}, torn...), "\n{\"seq\": 6, \"key\": \"k1\", \"value\": \"x\"}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, partOps := range []int{-1, 4} {
		if _, err := CheckDir(dir, checker.Options{PartOps: partOps}); err == nil || !strings.Contains(err.Error(), "stream.jsonl:3:") {
			t.Errorf("PartOps %d: a line cut short before the last: error %v, want one naming stream.jsonl:3", partOps, err)
		}
	}
}

// The read-back failed before the stream's last sequence was learnt, so
// the observers were drained to 0: the stream the checkers judge is
// unknown, not empty and complete, whole and in parts, and no
// acknowledged write is lost for it (audit cell kv/i1min_readback_failed).
func TestCheckDirReadBackFailed(t *testing.T) {
	dir := filepath.Join("testdata", "cells", "readback_failed")
	ops, err := history.ReadOps(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := CheckDir(dir, checker.Options{PartOps: -1, MaxVisualizations: -1})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := CheckDir(dir, checker.Options{PartOps: 4, MaxVisualizations: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range whole {
		samePartsJudgement(t, r, parts[i], ops)
		if r.Name == checker.NameIntegrity && (r.Verdict != checker.Unknown || r.Counts[checker.CountLostWrite] != 0) {
			t.Errorf("stream-integrity: %s %s, want unknown and no lost write", r.Verdict, r.Summary)
		}
	}
}
