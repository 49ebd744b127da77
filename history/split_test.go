package history

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// splitFixture writes a history of keys k0..k9 with a fault record, and
// its stream, and returns both.
func splitFixture(t *testing.T, complete bool) (string, []Op, []Entry) {
	t.Helper()
	dir := t.TempDir()
	rec, err := NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var ops []Op
	var entries []Entry
	for i := range 200 {
		k := fmt.Sprintf("k%d", i%10)
		op := Op{Client: i % 4, Type: Put, Key: k, Value: fmt.Sprintf("v%d", i), Rev: uint64(i + 1), Outcome: OK,
			Invoke: int64(10 * i), Complete: int64(10*i + 5 - i%3)}
		if i%7 == 0 {
			op = Op{Client: i % 4, Type: Get, Key: k, Outcome: OK, Err: ErrNotFound, Invoke: int64(10 * i), Complete: int64(10*i + 1)}
		} else {
			entries = append(entries, Entry{Seq: op.Rev, Key: k, Value: op.Value})
		}
		if i == 50 {
			ops = append(ops, Op{Client: NemesisClient, Type: Fault, Fault: "kill", Targets: []string{"n1"}, Outcome: OK, Invoke: 1, Complete: 2})
		}
		ops = append(ops, op)
	}
	for _, op := range ops {
		rec.Add(op)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := WriteStream(filepath.Join(dir, "stream.jsonl"), entries, complete); err != nil {
		t.Fatal(err)
	}
	return dir, ops, entries
}

// A split loses nothing, keeps each key whole and in order, and says where
// every op came from.
func TestSplitDir(t *testing.T) {
	for _, complete := range []bool{true, false} {
		for _, n := range []int{1, 3, 7, 10} {
			t.Run(fmt.Sprintf("complete=%v/parts=%d", complete, n), func(t *testing.T) {
				dir, ops, entries := splitFixture(t, complete)
				s, err := SplitDir(dir, t.TempDir(), n, nil)
				if err != nil {
					t.Fatal(err)
				}
				if s.Ops != len(ops) || len(s.Dirs) != n {
					t.Fatalf("ops %d, parts %d; want %d, %d", s.Ops, len(s.Dirs), len(ops), n)
				}
				seen := make([]bool, len(ops))
				var stream []Entry
				for p, d := range s.Dirs {
					h, err := Load(d)
					if err != nil {
						t.Fatal(err)
					}
					if len(h.Ops) != len(s.Index[p]) {
						t.Fatalf("part %d: %d ops, %d indexes", p, len(h.Ops), len(s.Index[p]))
					}
					for i, op := range h.Ops {
						g := s.Index[p][i]
						if i > 0 && g <= s.Index[p][i-1] {
							t.Fatalf("part %d: indexes out of order at %d", p, i)
						}
						if !reflect.DeepEqual(op, ops[g]) || (op.Type != Fault && s.PartOf(op.Key) != p) {
							t.Fatalf("part %d op %d = %+v, whole op %d = %+v", p, i, op, g, ops[g])
						}
						seen[g] = true
					}
					if h.StreamComplete != complete {
						t.Fatalf("part %d complete = %v, want %v", p, h.StreamComplete, complete)
					}
					for _, e := range h.Stream {
						if s.PartOf(e.Key) != p {
							t.Fatalf("part %d holds %s", p, e.Key)
						}
					}
					stream = append(stream, h.Stream...)
					keys := map[string]bool{}
					for _, op := range h.Ops {
						if op.Key != "" {
							keys[op.Key] = true
						}
					}
					if n == 10 && len(keys) != 1 {
						t.Errorf("part %d of 10 holds %d of the 10 keys, want 1: keys go to the smallest part", p, len(keys))
					}
				}
				for g, ok := range seen {
					if !ok {
						t.Fatalf("op %d is in no part", g)
					}
				}
				if len(stream) != len(entries) {
					t.Fatalf("%d entries in the parts, want %d", len(stream), len(entries))
				}
				acks := 0
				for i, a := range s.Acks {
					if i > 0 && (a.Rev < s.Acks[i-1].Rev || a.Complete < s.Acks[i-1].Complete) {
						t.Fatal("acks not sorted by revision, or not the earliest ack of their revision or later")
					}
					acks++
				}
				if acks != len(entries) {
					t.Fatalf("%d acks, want %d", acks, len(entries))
				}
			})
		}
	}
}

// A bad line is named by its line in the whole file.
func TestSplitDirNamesWholeLines(t *testing.T) {
	dir, _, _ := splitFixture(t, true)
	good, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	bad := strings.Join(lines[:5], "") + `{"client":1,"type":"get","key":"k","outcome":"ok","invoke":9,"complete":3}` + "\n" + strings.Join(lines[5:], "")
	stream, err := os.ReadFile(filepath.Join(dir, "stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	slines := strings.SplitAfter(string(stream), "\n")
	dupStream := strings.Join(slines[:4], "") + slines[2] + strings.Join(slines[4:], "")
	noHeader := `{}` + "\n" + strings.Join(slines[1:], "")
	cases := []struct{ name, file, body, want string }{
		{"op", "history.jsonl", bad, "history.jsonl:6:"},
		{"stream", "stream.jsonl", dupStream, "stream.jsonl:5: sequence"},
		{"stream header", "stream.jsonl", noHeader, "stream.jsonl:1: header without"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _, _ := splitFixture(t, true)
			if err := os.WriteFile(filepath.Join(d, c.file), []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := SplitDir(d, t.TempDir(), 3, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one naming %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
		})
	}
}

func TestHistoryLine(t *testing.T) {
	whole := History{Ops: make([]Op, 3)}
	part := History{Ops: make([]Op, 2), Part: &Part{Index: []int32{4, 9}}}
	for _, c := range []struct {
		h    *History
		i    int
		want int
	}{{&whole, 0, 1}, {&whole, 2, 3}, {&part, 0, 5}, {&part, 1, 10}} {
		if got := c.h.Line(c.i); got != c.want {
			t.Errorf("Line(%d) = %d, want %d", c.i, got, c.want)
		}
	}
}

// A sequence two parts' entries hold, or that an op reads from another
// part's key, makes the split Crossed; keys of one part may share one.
func TestSplitCrossed(t *testing.T) {
	put := func(k, v string, rev uint64) Op {
		return Op{Client: 1, Type: Put, Key: k, Value: v, Rev: rev, Outcome: OK, Invoke: int64(rev), Complete: int64(rev) + 1}
	}
	cases := []struct {
		name    string
		ops     []Op
		streams [][]Entry // cut one after the other, as stream.jsonl then observed.jsonl
		parts   int
		crossed string
	}{
		{"clean", []Op{put("a", "a1", 1), put("b", "b1", 2)},
			[][]Entry{{{Seq: 1, Key: "a", Value: "a1"}, {Seq: 2, Key: "b", Value: "b1"}}}, 2, ""},
		{"a revision another key holds", []Op{put("a", "a1", 1), put("b", "b1", 2), put("a", "a2", 2)},
			[][]Entry{{{Seq: 1, Key: "a", Value: "a1"}, {Seq: 2, Key: "b", Value: "b1"}}}, 2, "refers to sequence 2"},
		{"the same, one part", []Op{put("a", "a1", 1), put("b", "b1", 2), put("a", "a2", 2)},
			[][]Entry{{{Seq: 1, Key: "a", Value: "a1"}, {Seq: 2, Key: "b", Value: "b1"}}}, 1, ""},
		{"a revision acknowledged to keys of two parts, nobody saw it", []Op{put("a", "a1", 1), put("b", "b1", 2), put("a", "a2", 2)},
			[][]Entry{{{Seq: 1, Key: "a", Value: "a1"}}}, 2, "line 3 refers to sequence 2 (its revision)"},
		{"a revision nobody saw, read by another part's key", []Op{put("a", "a1", 1), {Client: 2, Type: Get, Key: "b", Value: "a2", Rev: 2, Outcome: OK, Invoke: 1, Complete: 2},
			put("a", "a2", 2)}, [][]Entry{{{Seq: 1, Key: "a", Value: "a1"}}}, 2, "line 3 refers to sequence 2 (its revision)"},
		{"a revision nobody saw, acknowledged twice to one part", []Op{put("a", "a1", 1), put("b", "b1", 2), put("b", "b2", 2)},
			[][]Entry{{{Seq: 1, Key: "a", Value: "a1"}}}, 2, ""},
		{"a sequence reused by another key", []Op{put("a", "a1", 1), put("b", "b1", 2)},
			[][]Entry{{{Seq: 1, Key: "a", Value: "a1"}, {Seq: 2, Key: "b", Value: "b1"}}, {{Seq: 2, Key: "a", Value: "a9"}}}, 2, "sequence 2 is held by keys of two parts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := NewSplit(t.TempDir(), c.parts)
			if err != nil {
				t.Fatal(err)
			}
			for i, es := range c.streams {
				path := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))
				if err := WriteStream(path, es, true); err != nil {
					t.Fatal(err)
				}
				if err := s.CutStream(path, nil); err != nil {
					t.Fatal(err)
				}
			}
			rec, err := NewRecorder(filepath.Join(dir, "history.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for _, op := range c.ops {
				rec.Add(op)
			}
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.CutOps(filepath.Join(dir, "history.jsonl")); err != nil {
				t.Fatal(err)
			}
			if got := s.Crossed(); (c.crossed == "") != (got == "") || !strings.Contains(got, c.crossed) {
				t.Fatalf("Crossed() = %q, want %q", got, c.crossed)
			}
		})
	}
}

func TestSeqSet(t *testing.T) {
	var s SeqSet
	in := []uint64{5, 1, 64, 63, 200, 1000}
	for _, q := range in {
		if !s.Add(q) {
			t.Fatalf("Add(%d) not new", q)
		}
	}
	if s.Add(64) || s.Len() != len(in) || !s.Has(63) || s.Has(62) {
		t.Fatalf("Add/Len/Has wrong: len %d", s.Len())
	}
	for _, c := range []struct {
		seq  uint64
		want int
	}{{0, 0}, {1, 0}, {2, 1}, {5, 1}, {6, 2}, {64, 3}, {65, 4}, {199, 4}, {201, 5}, {999, 5}, {1000, 5}, {5000, 6}} {
		if got := s.Rank(c.seq); got != c.want {
			t.Errorf("Rank(%d) = %d, want %d", c.seq, got, c.want)
		}
	}
}

// seqOwners holds what was set at any sequence, a stream's first at 10^12
// included, in memory that grows with the sequences set.
func TestSeqOwners(t *testing.T) {
	var o seqOwners
	const huge = uint64(1_000_000_000_000)
	set := map[uint64]uint16{huge: 2, huge + 1: 3, 1: 1, 63: 4, 64: 5, huge - 1: 6}
	for seq, v := range set {
		o.set(seq, v)
	}
	for _, seq := range []uint64{0, 1, 2, 62, 63, 64, 65, huge - 2, huge - 1, huge, huge + 1, huge + 2, 1 << 63} {
		if got := o.get(seq); got != set[seq] {
			t.Errorf("get(%d) = %d, want %d", seq, got, set[seq])
		}
	}
	// Pages for 0-63, 64-127, and two around 10^12 (10^12 is not a
	// multiple of 64: huge-1 and huge share a page, huge+1 may not).
	if want := len(o.pages) * ownerPage; len(o.slots) != want || len(o.pages) > 4 {
		t.Errorf("%d slots in %d pages, want %d in at most 4", len(o.slots), len(o.pages), want)
	}
}

// A stream that starts at sequence 10^12 is cut in memory that does not
// grow with its sequences, and its ops refer to it without crossing.
func TestSplitHugeSequence(t *testing.T) {
	const huge = uint64(1_000_000_000_000)
	dir := t.TempDir()
	rec, err := NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rec.Add(Op{Client: 0, Type: Put, Key: "a", Value: "a1", Rev: huge, Outcome: OK, Invoke: 1, Complete: 2})
	rec.Add(Op{Client: 1, Type: Put, Key: "b", Value: "b1", Rev: huge + 1, Outcome: OK, Invoke: 1, Complete: 2})
	rec.Add(Op{Client: 1, Type: Get, Key: "b", Value: "b1", Rev: huge + 1, Outcome: OK, Invoke: 3, Complete: 4})
	rec.Add(Op{Client: 0, Type: Get, Key: "a", Value: "b1", Rev: huge + 1, Outcome: OK, Invoke: 3, Complete: 4})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	entries := []Entry{{Seq: huge, Key: "a", Value: "a1"}, {Seq: huge + 1, Key: "b", Value: "b1"}}
	if err := WriteStream(filepath.Join(dir, "stream.jsonl"), entries, true); err != nil {
		t.Fatal(err)
	}
	var seqs SeqSet
	s, err := SplitDir(dir, t.TempDir(), 2, func(e Entry) { seqs.Add(e.Seq) })
	if err != nil {
		t.Fatal(err)
	}
	if want := "line 4 refers to sequence 1000000000001"; !strings.Contains(s.Crossed(), want) {
		t.Errorf("Crossed() = %q, want %q (a's get read b's sequence)", s.Crossed(), want)
	}
	if len(s.seqPart.slots) > 2*ownerPage {
		t.Errorf("%d slots for 2 sequences", len(s.seqPart.slots))
	}
	if seqs.Rank(huge+1) != 1 || seqs.Rank(huge) != 0 || seqs.Rank(2*huge) != 2 || seqs.Len() != 2 {
		t.Errorf("Rank around 10^12 wrong")
	}
}
