package history

import (
	"os"
	"path/filepath"
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
