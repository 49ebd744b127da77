package record

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compact is raw JSON without its spaces, for comparing settings.
func compact(t *testing.T, raws ...json.RawMessage) string {
	t.Helper()
	var parts []string
	for _, r := range raws {
		var v any
		if err := json.Unmarshal(r, &v); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		b, _ := json.Marshal(v)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, " ")
}

func readOld(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "old", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeOldSpecs: every shape run.json has had gives the settings
// one entry per setting: spec.kv an object (before workload flags took
// lists) or a list, spec.catchup an object; spec.settings, once there,
// wins over a stray kv.
func TestDecodeOldSpecs(t *testing.T) {
	for _, tc := range []struct {
		file, workload, settings string
	}{
		{"run-kv-list.json", "kv-update", `{"keys":10} {"keys":20}`},
		{"run-catchup-object.json", "catchup", `{"backlog":"1GiB"}`},
		{"run-settings.json", "kv-update", `{"keys":30}`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			spec, err := DecodeSpec(readOld(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := compact(t, spec.Settings...); got != tc.settings {
				t.Errorf("settings %s, want %s", got, tc.settings)
			}
			if got := StoredWorkload(spec.Workload); got != tc.workload {
				t.Errorf("workload %q, want %q", got, tc.workload)
			}
		})
	}
}

// TestDecodeOldCells: a cell's kv-update options were cells[].workload (an
// object); they load as its settings, and settings already there stay.
func TestDecodeOldCells(t *testing.T) {
	for _, tc := range []struct {
		file, settings string
		verdict        Verdict
	}{
		{"cell-workload-object.json", `{"keys":10}`, Invalid},
		{"cell-settings.json", `{"keys":10}`, Valid},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c, err := DecodeCell(readOld(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := compact(t, c.Settings); got != tc.settings || c.Verdict != tc.verdict || c.Name != "direct-get-on" {
				t.Errorf("cell %q %s, settings %s; want direct-get-on %s, settings %s", c.Name, c.Verdict, got, tc.verdict, tc.settings)
			}
		})
	}
}

// TestReadOldResult: a results.json of the first shape (spec.kv an object,
// cells[].workload, no workload name, absolute folders) reads whole.
func TestReadOldResult(t *testing.T) {
	runDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(runDir, ResultFile), readOld(t, "results-kv-object.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := ReadResult(runDir)
	if err != nil {
		t.Fatal(err)
	}
	if got := compact(t, res.Spec.Settings...); got != `{"clients":4,"keys":10}` {
		t.Errorf("spec settings %s", got)
	}
	if len(res.Cells) != 1 || compact(t, res.Cells[0].Settings) != `{"clients":4,"keys":10}` {
		t.Fatalf("cells %+v", res.Cells)
	}
	if res.Dir != "/srv/chaos/store/20250101T000000Z-s1" || res.Cells[0].Dir != "/srv/chaos/store/20250101T000000Z-s1/direct-get-off" {
		t.Errorf("absolute folders moved: %q, %q", res.Dir, res.Cells[0].Dir)
	}
	if StoredWorkload(res.Spec.Workload) != "kv-update" || res.Verdict != Valid {
		t.Errorf("workload %q, verdict %s", res.Spec.Workload, res.Verdict)
	}
}

// TestReadErrors: a missing file is the read's error (a reader tells a
// run cut short by it); one that does not decode names the file.
func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadResult(dir); !os.IsNotExist(err) {
		t.Errorf("ReadResult of no file: %v, want a not-exist error", err)
	}
	if _, err := ReadCell(dir, dir); !os.IsNotExist(err) {
		t.Errorf("ReadCell of no file: %v, want a not-exist error", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ResultFile), []byte(`{"cells": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResult(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ResultFile)) {
		t.Errorf("ReadResult of a bad file: %v, want an error naming it", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ResultFile), []byte(`{not json`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCell(dir, dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ResultFile)) {
		t.Errorf("ReadCell of a bad file: %v, want an error naming it", err)
	}
}
