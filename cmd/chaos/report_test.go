package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports/index"
)

// TestReportIndex: report --index rebuilds a store's index.html alone and
// exits 0, whatever its runs' verdicts; a run folder given as the store
// is a one-line usage error that writes nothing.
func TestReportIndex(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	for _, run := range []string{"20260301T020000Z-s11", "20260302T020000Z-s12", "20260305T020000Z-s16"} {
		src := filepath.Join("..", "..", "reports", "index", "testdata", "nightly", run)
		if err := os.CopyFS(filepath.Join(store, run), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := chaos(t, t.TempDir(), "report", "--index", store)
	page, err := os.ReadFile(filepath.Join(store, index.FileName))
	if code != 0 || err != nil || !strings.Contains(stdout, "(3 runs)") {
		t.Fatalf("exit %d, index.html read: %v\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
	}
	for _, want := range []string{`href="20260301T020000Z-s11/report.html"`, `href="20260302T020000Z-s12/report.html"`, "unexpected end of JSON input"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("index.html lacks %s", want)
		}
	}

	run := filepath.Join(store, "20260301T020000Z-s11")
	code, _, stderr = chaos(t, t.TempDir(), "report", "--index", run)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != record.ExitUsage || len(lines) != 1 || !strings.Contains(stderr, "is a run folder") {
		t.Errorf("--index of a run folder: exit %d, stderr %q; want %d and one line saying so", code, stderr, record.ExitUsage)
	}
	if _, err := os.Stat(filepath.Join(run, index.FileName)); err == nil {
		t.Errorf("an index.html was written into the run folder")
	}
}

// TestRunWritesTheStoreIndex: after a run, the index of the store holding
// its folder (the folder's parent: hunt's <store>/runs too) lists it.
func TestRunWritesTheStoreIndex(t *testing.T) {
	store := t.TempDir()
	run := filepath.Join(store, "20260301T020000Z-s11")
	if err := os.CopyFS(run, os.DirFS(filepath.Join("..", "..", "reports", "index", "testdata", "nightly", filepath.Base(run)))); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	writeStoreIndex(run+string(filepath.Separator), &stdout, &stderr)
	page, err := os.ReadFile(filepath.Join(store, index.FileName))
	if err != nil || !strings.Contains(string(page), `href="20260301T020000Z-s11/report.html"`) || stderr.Len() > 0 {
		t.Errorf("index.html (read: %v) does not list the run; stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	if want := "index: " + filepath.Join(store, index.FileName) + "\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
}
