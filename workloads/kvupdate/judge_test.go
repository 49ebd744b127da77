package kvupdate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
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
		{"diverged", map[string]bool{replicas.NameDivergence: true}, "n2 from seq 5"},
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
				if r.Name == replicas.NameDivergence && !strings.Contains(r.Summary, c.contains) {
					t.Errorf("divergence summary %q lacks %q", r.Summary, c.contains)
				}
			}
			for _, n := range []string{kvcheck.NameIntegrity, kvcheck.NameRetention, kvcheck.NameDeletes, replicas.NameDivergence, kvcheck.NameLinearizability} {
				if !names[n] {
					t.Errorf("no %s result", n)
				}
			}
		})
	}
}

// A cell whose observers were never drained (interrupted) and whose
// bucket keeps one revision holds, in its read-back, only the newest
// revisions: the sequences before them nobody saw. Each costs only the
// judgements that need it: in the clean cell every write the bucket
// dropped was read at its revision, so the stream is judged valid; a write
// nobody read leaves stream-integrity unknown, naming it. (This test said
// unknown for both: no observers, no verdict.)
func TestCheckDirWithoutObserved(t *testing.T) {
	for _, c := range []struct {
		name, drop string // drop: a history line removed
		want       checker.Verdict
		says       string
	}{
		{"every dropped write read back", "", checker.Valid, "3 of 5 sequences nobody saw: the history verifies every judgement that needs them"},
		{"a dropped write nobody read", `"type": "get", "key": "k0", "value": "c0-1"`, checker.Unknown,
			"3 of 5 sequences nobody saw, and nothing else verifies 1 of 5 acknowledged writes that need them: seq 1 (client 0's create of k0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := copyCell(t, "clean")
			os.Remove(filepath.Join(dir, ObservedFile))
			for _, f := range []string{"replicas.json", "replica-n1.jsonl", "replica-n2.jsonl", "replica-n3.jsonl"} {
				os.Remove(filepath.Join(dir, f))
			}
			if c.drop != "" {
				b, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				var keep []string
				for _, l := range strings.SplitAfter(string(b), "\n") {
					if !strings.Contains(l, c.drop) {
						keep = append(keep, l)
					}
				}
				if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(strings.Join(keep, "")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, partOps := range []int{-1, 4} {
				results, err := CheckDir(dir, checker.Options{PartOps: partOps, MaxVisualizations: -1})
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range results {
					switch {
					case r.Name == kvcheck.NameIntegrity && (r.Verdict != c.want || !strings.Contains(r.Summary, c.says)):
						t.Errorf("PartOps %d: %s: %s (%s), want %s saying %q", partOps, r.Name, r.Verdict, r.Summary, c.want, c.says)
					case r.Name == replicas.NameDivergence && r.Verdict != checker.Unknown:
						t.Errorf("%s: %s (%s), want unknown", r.Name, r.Verdict, r.Summary)
					}
				}
			}
		})
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
			if r.Name == kvcheck.NameRetention {
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
// acknowledged write is lost for it, nor any delete honoured (audit cell
// kv/i1min_readback_failed).
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
		if r.Name == kvcheck.NameIntegrity && (r.Verdict != checker.Unknown || r.Counts[kvcheck.CountLostWrite] != 0) {
			t.Errorf("stream-integrity: %s %s, want unknown and no lost write", r.Verdict, r.Summary)
		}
		if r.Name == kvcheck.NameDeletes && (r.Verdict != checker.Unknown || r.Counts[kvcheck.CountUnconfirmedDeletes] != 1) {
			t.Errorf("deletes: %s %s, want unknown: nothing read back confirms k0's delete", r.Verdict, r.Summary)
		}
	}
}

// The observers missed one sequence of a bucket keeping one revision
// (seen under kill-all: 1 of 8,082): it costs only the judgements that
// need it, whole and in parts. In unseen_verified the write there was
// read at its revision: valid. In unseen_unverified nobody read the write
// there, and the next update expected it: unknown, naming both. In
// unseen_reused a put of k2 was acknowledged with that sequence too, and
// read there: two acks of one sequence are proof without it, invalid
// whole and in parts (the split finds the acks of two parts' keys crossed
// and judges the cell whole).
func TestCheckDirUnseenSequence(t *testing.T) {
	for _, c := range []struct {
		cell string
		want checker.Verdict
		says string
	}{
		{"unseen_verified", checker.Valid, "1 of 5 sequences nobody saw: the history verifies every judgement that needs them (1 of 5 acknowledged writes and 1 of 5 reads verified by the history alone)"},
		{"unseen_unverified", checker.Unknown, "1 of 5 sequences nobody saw, and nothing else verifies 1 of 5 acknowledged writes and 1 of 3 CAS checks that need them: " +
			"seq 2 (client 1's create of k1), seq 2 (the revision client 1's update of k1 expected)"},
		{"unseen_reused", checker.Invalid, "1 seq_conflict (7 acknowledged writes, 5 stream entries); stream incomplete"},
	} {
		t.Run(c.cell, func(t *testing.T) {
			dir := filepath.Join("testdata", "cells", c.cell)
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
				want := checker.Valid
				if r.Name == kvcheck.NameIntegrity {
					want = c.want
					if !strings.Contains(r.Summary, c.says) {
						t.Errorf("stream-integrity: %q does not say %q", r.Summary, c.says)
					}
				}
				if r.Verdict != want {
					t.Errorf("%s: %s (%s), want %s", r.Name, r.Verdict, r.Summary, want)
				}
			}
		})
	}
}
