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

// TestReleases: chaos releases adds a store's cell runs to the ledger and
// writes the matrix; without a store it renders the ledger alone, the same
// page; a STORE that is missing or a run folder is a one-line usage error
// that writes nothing.
func TestReleases(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	run := "20260302T020000Z-s12"
	if err := os.CopyFS(filepath.Join(store, run), os.DirFS(filepath.Join("..", "..", "reports", "index", "testdata", "nightly", run))); err != nil {
		t.Fatal(err)
	}
	docs := t.TempDir()
	out, ledger := filepath.Join(docs, "releases.md"), filepath.Join(docs, "releases.jsonl")
	code, stdout, stderr := chaos(t, t.TempDir(), "releases", "--out", out, "--ledger", ledger, store)
	page, err := os.ReadFile(out)
	if code != 0 || err != nil || !strings.Contains(stdout, "(4 runs of a cell, 4 read from 1 stores)") {
		t.Fatalf("exit %d, page read: %v\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
	}
	if !strings.Contains(string(page), "| [linearizable](#linearizable) (`linearizable`) | 3/4 |") {
		t.Errorf("the page lacks linearizable's 3 of 4 runs on v2.15.3:\n%s", page)
	}
	code, _, stderr = chaos(t, t.TempDir(), "releases", "--out", out, "--ledger", ledger)
	again, _ := os.ReadFile(out)
	if code != 0 || string(again) != string(page) {
		t.Errorf("from the ledger alone: exit %d (stderr %q), the page changed: %v", code, stderr, string(again) != string(page))
	}
	for _, bad := range []string{filepath.Join(store, "missing"), filepath.Join(store, run)} {
		os.Remove(out)
		code, _, stderr = chaos(t, t.TempDir(), "releases", "--out", out, "--ledger", ledger, bad)
		if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code != record.ExitUsage || len(lines) != 1 {
			t.Errorf("releases %s: exit %d, stderr %q; want %d and one line", bad, code, stderr, record.ExitUsage)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("releases %s wrote the page", bad)
		}
	}
}
