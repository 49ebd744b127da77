package kvupdate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
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
