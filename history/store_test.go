package history

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestRecorderRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rec, err := NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ops := []Op{
		{Client: 0, Node: "n1", Type: Get, Key: "k0", Outcome: OK, Err: ErrNotFound, Invoke: 1, Complete: 2},
		{Client: 0, Node: "n1", Type: Update, Key: "k0", Value: "c0-1", ExpectedRev: 3, Outcome: Fail, Err: ErrWrongLastSeq, ErrCode: 10071, ErrSeq: 5, Invoke: 3, Complete: 4},
		{Client: NemesisClient, Type: Fault, Fault: "kill", Targets: []string{"n2"}, Outcome: OK, Invoke: 5, Complete: 9},
	}
	for _, op := range ops {
		rec.Add(op)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	entries := []Entry{{Seq: 1, Key: "k0", Value: "c0-0"}}
	if err := WriteStream(filepath.Join(dir, "stream.jsonl"), entries, true); err != nil {
		t.Fatal(err)
	}
	h, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 3 || h.Ops[1].ErrSeq != 5 || h.Ops[2].Targets[0] != "n2" || !h.StreamComplete || len(h.Stream) != 1 {
		t.Fatalf("round trip lost data: %+v", h)
	}
}

// A run killed while writing leaves a torn last line: the rest is still
// checkable. A bad line in the middle is corruption and an error.
func TestReadOpsTornLastLine(t *testing.T) {
	dir := t.TempDir()
	good := `{"client":1,"type":"get","key":"k","outcome":"ok","err":"not_found","invoke":1,"complete":2}`
	cases := []struct {
		name, body string
		want       int
		wantErr    bool
	}{
		{"clean", good + "\n" + good + "\n", 2, false},
		{"torn tail", good + "\n" + `{"client":1,"ty`, 1, false},
		{"bad middle", good + "\n{oops\n" + good + "\n", 0, true},
		{"wrong type last", good + "\n" + `{"client":"1"}` + "\n", 0, true},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name+".jsonl")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		ops, err := ReadOps(p)
		if (err != nil) != c.wantErr || len(ops) != c.want {
			t.Errorf("%s: %d ops, err %v; want %d ops, error %v", c.name, len(ops), err, c.want, c.wantErr)
		}
	}
}

func TestReadStreamCountMismatchIsIncomplete(t *testing.T) {
	p := filepath.Join(t.TempDir(), "stream.jsonl")
	body := `{"complete":true,"count":2}` + "\n" + `{"seq":1,"key":"k","value":"v"}` + "\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, complete, err := ReadStream(p)
	if err != nil || complete || len(entries) != 1 {
		t.Fatalf("got %d entries, complete %v, err %v: a truncated file must read as incomplete", len(entries), complete, err)
	}
	if _, _, err := ReadStream(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing file: %v", err)
	}
}

// A torn last line of stream.jsonl is a read-back that did not finish: the
// entries before it, incomplete, and the line named, whether the file is
// read whole (Load) or cut into parts (CutStream). A line that does not
// parse in the middle, or a last line of the wrong types, stays an error.
func TestReadStreamTornLastLine(t *testing.T) {
	head := `{"complete":true,"count":2}`
	e1, e2 := `{"seq":1,"key":"k","value":"a"}`, `{"seq":2,"key":"k","value":"b"}`
	cases := []struct {
		name, body string
		entries    int // -1: an error naming line errLine
		complete   bool
		torn       int
		errLine    int
	}{
		{"whole", head + "\n" + e1 + "\n" + e2 + "\n", 2, true, 0, 0},
		{"torn last entry", head + "\n" + e1 + "\n" + `{"seq":2,"key":"k","va`, 1, false, 3, 0},
		{"torn header, nothing after", `{"complete":tr`, 0, false, 1, 0},
		{"torn line after as many entries as counted", `{"complete":true,"count":1}` + "\n" + e1 + "\n" + `{"seq":2,"k`, 1, false, 3, 0},
		{"torn header, entries after", `{"complete":tr` + "\n" + e1 + "\n", -1, false, 0, 1},
		{"torn middle", head + "\n" + `{"seq":1,"ke` + "\n" + e2 + "\n", -1, false, 0, 2},
		{"wrong type last", head + "\n" + e1 + "\n" + `{"seq":"2"}` + "\n", -1, false, 0, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "stream.jsonl")
			if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			h, err := Load(dir)
			s, _ := NewSplit(t.TempDir(), 2)
			cutErr := s.CutStream(path, nil)
			if c.entries < 0 {
				want := path + ":" + strconv.Itoa(c.errLine) + ":"
				for _, err := range []error{err, cutErr} {
					if err == nil || !strings.HasPrefix(err.Error(), want) {
						t.Errorf("error %v, want one starting %q", err, want)
					}
				}
				return
			}
			if err != nil || cutErr != nil {
				t.Fatalf("Load: %v; CutStream: %v", err, cutErr)
			}
			if err := s.CutOps(filepath.Join(dir, "history.jsonl")); err != nil {
				t.Fatal(err)
			}
			if len(h.Stream) != c.entries || h.StreamComplete != c.complete || h.StreamTorn != c.torn {
				t.Errorf("Load: %d entries, complete %v, torn %d; want %d, %v, %d", len(h.Stream), h.StreamComplete, h.StreamTorn,
					c.entries, c.complete, c.torn)
			}
			if s.StreamTorn != c.torn {
				t.Errorf("CutStream: torn %d, want %d", s.StreamTorn, c.torn)
			}
			// ReadStreamTorn, as the queue workload reads it, says the same.
			if es, complete, torn, err := ReadStreamTorn(path); err != nil || len(es) != c.entries || complete != c.complete || torn != c.torn {
				t.Errorf("ReadStreamTorn: %d entries, complete %v, torn %d, %v; want %d, %v, %d", len(es), complete, torn, err, c.entries, c.complete, c.torn)
			}
			n := 0
			for _, d := range s.Dirs {
				p, err := Load(d)
				if err != nil || p.StreamComplete != c.complete {
					t.Fatalf("part %s: complete %v, err %v; want complete %v", d, p.StreamComplete, err, c.complete)
				}
				n += len(p.Stream)
			}
			if n != c.entries {
				t.Errorf("parts hold %d entries, want %d", n, c.entries)
			}
		})
	}
}
