package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// malformed lists every fixture in testdata/malformed: the line its error
// must name and a phrase the error must contain. Ops fixtures are read
// with ReadOps, NAME.stream.jsonl with ReadStream. Records that are sound
// but useless to the KV checkers are in ../checker/kvcheck/testdata/malformed.
var malformed = map[string]struct {
	line int
	says string
}{
	"complete_before_invoke":      {3, "completes at 4000, before it was invoked at 5000"},
	"negative_invoke":             {3, "negative invoke time -1"},
	"unknown_type":                {3, `unknown type "remove"`},
	"missing_type":                {3, "missing type"},
	"unknown_outcome":             {3, `unknown outcome "success"`},
	"missing_outcome":             {3, "missing outcome"},
	"missing_key":                 {3, "get without a key"},
	"ok_with_error":               {3, `ok update with error "timeout"`},
	"fault_with_client":           {3, "fault record with client 2"},
	"negative_client":             {3, "get with client -3"},
	"bad_field_type":              {3, "cannot unmarshal string"},
	"bad_json_middle":             {2, "unexpected end of JSON input"},
	"stream_zero_seq":             {4, "stream entry without a sequence"},
	"stream_missing_key":          {4, "stream entry 3 without a key"},
	"stream_unknown_op":           {4, `unknown operation "erase"`},
	"stream_duplicate_seq":        {4, "sequence 2 appears twice (also line 3)"},
	"stream_bad_json":             {4, "unexpected end of JSON input"},
	"stream_empty":                {1, "empty file"},
	"stream_header_without_count": {1, `header without "complete" and "count"`},
	"stream_negative_count":       {1, "negative count -1"},
}

// Every malformed fixture gives one line naming file:line and what is
// wrong, and none panics.
func TestMalformedFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/malformed/*.jsonl")
	if len(files) != len(malformed) {
		t.Errorf("%d fixtures on disk, %d in the table", len(files), len(malformed))
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".jsonl"), ".stream")
		want, ok := malformed[name]
		if !ok {
			t.Errorf("%s is not in the table", f)
			continue
		}
		t.Run(name, func(t *testing.T) {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("panicked: %v", p)
				}
			}()
			var err error
			if strings.HasSuffix(f, ".stream.jsonl") {
				_, _, err = ReadStream(f)
			} else {
				_, err = ReadOps(f)
			}
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			prefix := fmt.Sprintf("%s:%d: ", f, want.line)
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, want.says) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line starting %q and saying %q", msg, prefix, want.says)
			}
			var le *LineError
			if !errors.As(err, &le) || le.Line != want.line {
				t.Errorf("error %v is not a *LineError for line %d", err, want.line)
			}
		})
	}
}

// Load goes through the same validation, for either file of a cell.
func TestLoadRejectsMalformed(t *testing.T) {
	copyTo := func(dir, from, to string) {
		b, err := os.ReadFile(filepath.Join("testdata/malformed", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good := `{"client":0,"type":"get","key":"k","outcome":"ok","err":"not_found","invoke":0,"complete":1000}` + "\n"
	for _, c := range []struct{ from, to, want string }{
		{"complete_before_invoke.jsonl", "history.jsonl", "history.jsonl:3: "},
		{"stream_duplicate_seq.stream.jsonl", "stream.jsonl", "stream.jsonl:4: "},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(good), 0o644); err != nil {
			t.Fatal(err)
		}
		copyTo(dir, c.from, c.to)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Load error %v, want one naming %q", c.from, err, c.want)
		}
	}
}

// The in-memory validators name the line the op or entry would have.
func TestValidateInMemory(t *testing.T) {
	ok := Op{Client: 0, Type: Get, Key: "k", Outcome: OK, Err: ErrNotFound, Invoke: 0, Complete: 0}
	zero := ok // a zero-length op is legal
	fault := Op{Client: NemesisClient, Type: Fault, Outcome: Info, Invoke: 5, Complete: 9}
	bad := ok
	bad.Invoke = 7
	cases := []struct {
		name string
		h    History
		want string // "" for valid
	}{
		{"valid", History{Ops: []Op{ok, zero, fault}, Stream: []Entry{{Seq: 1, Key: "k", Value: "a"}, {Seq: 3, Key: "k", Operation: "del"}}}, ""},
		{"bad op", History{Ops: []Op{ok, fault, bad}}, "history.jsonl:3: completes at 0, before it was invoked at 7"},
		{"unsorted stream, no repeat", History{Stream: []Entry{{Seq: 3, Key: "k"}, {Seq: 1, Key: "k"}, {Seq: 2, Key: "k"}}}, ""},
		{"unsorted stream, repeat", History{Stream: []Entry{{Seq: 3, Key: "k"}, {Seq: 1, Key: "k"}, {Seq: 3, Key: "k"}}},
			"stream.jsonl:4: sequence 3 appears twice (also line 2)"},
	}
	for _, c := range cases {
		err := c.h.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// A workload's registered op types validate; those registered as reads
// are drawn as reads, like kv's get, and no other type is.
func TestRegisteredReadTypes(t *testing.T) {
	RegisterOpTypes("test-write")
	RegisterReadTypes("test-read")
	cases := []struct {
		typ         OpType
		valid, read bool
	}{
		{Get, true, true},
		{Update, true, false},
		{"test-write", true, false},
		{"test-read", true, true},
		{"test-unknown", false, false},
	}
	for _, c := range cases {
		op := Op{Client: 1, Key: "k", Type: c.typ, Outcome: OK}
		if err := op.Validate(); (err == nil) != c.valid {
			t.Errorf("%s: Validate() = %v, want valid %v", c.typ, err, c.valid)
		}
		if IsRead(c.typ) != c.read {
			t.Errorf("IsRead(%s) = %v, want %v", c.typ, !c.read, c.read)
		}
	}
}
