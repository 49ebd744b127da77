package releases

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeepFindings: the newest run of a scenario that showed a class has
// its finding copied beside the page and named by the copy; older runs,
// runs whose finding the store no longer holds, and copies already made
// are left as they are, and the page links the copy.
func TestKeepFindings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, "store", name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	older := row("r1", "chaos run --nemesis=kill", "v2.14.9", "invalid", "lost-write")
	older.Finding = write("r1/c/finding.md", "old")
	newer := row("r2", "chaos run --nemesis=kill", "v2.14.9", "invalid", "lost-write")
	newer.Finding = write("r2/c/finding.md", "new")
	gone := row("r3", "chaos run --nemesis=pause", "v2.14.9", "invalid", "stale-read")
	gone.Finding = filepath.Join(dir, "store/r3/c/finding.md")
	kept := row("r4", "chaos run --nemesis=stepdown", "v2.14.9", "invalid", "bad-read")
	kept.Finding = "findings/r4-c.md"
	page := filepath.Join(dir, "docs")
	rows, err := KeepFindings([]Row{older, newer, gone, kept}, page)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"r1": older.Finding, "r2": "findings/r2-" + newer.Cell + ".md", "r3": gone.Finding, "r4": kept.Finding}
	for _, r := range rows {
		if r.Finding != want[r.Run] {
			t.Errorf("%s: finding %q, want %q", r.Run, r.Finding, want[r.Run])
		}
	}
	b, err := os.ReadFile(filepath.Join(page, want["r2"]))
	if err != nil || string(b) != "new" {
		t.Fatalf("the copy holds %q (%v), want the newest run's finding", b, err)
	}
	if md := string(Render(rows)); !strings.Contains(md, "[findings/r2-"+newer.Cell+".md](findings/r2-"+newer.Cell+".md)") {
		t.Errorf("the page does not link the copy:\n%s", md)
	}
}

// TestCommittedPageIsTheLedgers: docs/releases.md is what its ledger
// renders, and every finding it links is kept beside it, so the page in
// the repository stays true to the runs it counts (make releases).
func TestCommittedPageIsTheLedgers(t *testing.T) {
	docs := filepath.Join("..", "..", "docs")
	rows, err := ReadLedger(filepath.Join(docs, "releases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(docs, "releases.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(Render(rows)) != string(page) {
		t.Fatal("docs/releases.md is not what docs/releases.jsonl renders: run make releases")
	}
	for _, r := range rows {
		if strings.HasPrefix(r.Finding, FindingsDir+"/") {
			if _, err := os.Stat(filepath.Join(docs, r.Finding)); err != nil {
				t.Errorf("%s names %s, which is not kept: %v", r.Key(), r.Finding, err)
			}
		}
	}
}
