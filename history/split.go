package history

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// A Split is a stored history cut by key into parts that are judged one at
// a time, so that the check of an hour-long run holds one part in memory
// rather than the whole history (package kvcheck's Merge puts the parts'
// results together). Every key's ops and stream entries are in one part,
// in their order; what only the whole history knows comes with the split.
type Split struct {
	// Dirs are the parts' folders, each a history folder that Load reads:
	// history.jsonl, and stream.jsonl when the cell has one.
	Dirs []string
	// Index[p][i] is the position in the whole history.jsonl (the line
	// minus one) of op i of part p.
	Index [][]int32
	// Acks are the whole history's acknowledged writes sorted by
	// revision, each with the earliest time a write of its revision or a
	// later one was acknowledged (EarliestAcks): revisions are stream
	// sequences, shared by every key, so from then on the stream is known
	// to have passed it.
	Acks []Ack
	// Ops is the number of ops in the whole history.
	Ops int
	// StreamComplete says the stream.jsonl cut (CutStream) was read in
	// full; StreamTorn is its line cut short, or 0.
	StreamComplete bool
	StreamTorn     int

	keys  map[string]int // see PartOf
	sizes []int          // ops and entries per part
	// seqPart is 1 + the part whose entry holds each sequence (none
	// holding it: whose op referred to it first); 0: none.
	seqPart seqOwners
	crossed string // see Crossed
}

// Ack is an acknowledged write: the revision it was given and when.
type Ack struct {
	Rev      uint64
	Complete int64
}

// Part says that a History is one part of a Split: see History.Part.
type Part struct {
	Index []int32 // Split.Index of the part
	Acks  []Ack   // Split.Acks
	// Seqs are the sequences of the whole stream the checkers judge (a
	// part's stream holds its keys' only), when it is known: how many
	// messages lie between two of a key's is a question about the whole.
	Seqs *SeqSet
}

// PartOf is the part that holds key's ops and entries. A key is given,
// when first seen, to the part with the fewest ops so far, so that the
// parts come out about even even with few keys (a hash would put two of
// ten keys in one part as often as not). Ops without a key (fault
// records) go to part 0.
func (s *Split) PartOf(key string) int {
	if key == "" || len(s.Dirs) <= 1 {
		return 0
	}
	if p, ok := s.keys[key]; ok {
		return p
	}
	p := 0
	for i, n := range s.sizes {
		if n < s.sizes[p] {
			p = i
		}
	}
	s.keys[key] = p
	return p
}

// NewSplit makes the folders of n parts, part-0, part-1... under out.
// The files are then cut into them: the stream's first (CutStream, CutEntries),
// so that the ops can be checked against it, and the ops last (CutOps).
func NewSplit(out string, n int) (*Split, error) {
	if n < 1 {
		return nil, fmt.Errorf("split into %d parts", n)
	}
	s := &Split{Index: make([][]int32, n), keys: map[string]int{}, sizes: make([]int, n)}
	for p := range n {
		d := filepath.Join(out, fmt.Sprintf("part-%d", p))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		s.Dirs = append(s.Dirs, d)
	}
	return s, nil
}

// SplitDir cuts dir's stream.jsonl, if it has one, and its history.jsonl
// into n parts under out (NewSplit, CutStream, CutOps). seen, if not nil, is
// shown every stream entry.
func SplitDir(dir, out string, n int, seen func(Entry)) (*Split, error) {
	s, err := NewSplit(out, n)
	if err != nil {
		return nil, err
	}
	if err := s.CutStream(filepath.Join(dir, "stream.jsonl"), seen); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return s, s.CutOps(filepath.Join(dir, "history.jsonl"))
}

// CutStream cuts a stream.jsonl into the parts, each with a header that says
// the part is complete when the whole stream was. It reads and validates
// the file as ReadStream does, naming the whole file's lines, and records
// in StreamTorn the line cut short, if its last was.
func (s *Split) CutStream(path string, seen func(Entry)) error {
	if _, err := os.Stat(path); err != nil {
		return err
	}
	var err error
	s.StreamTorn, err = s.CutEntries(path, EntryFile{Name: "stream.jsonl", TornLast: true,
		Head: func(_ int, orig []byte, count, total int, torn bool) ([]byte, error) {
			complete := false
			if orig != nil { // nil: the header is the line cut short
				var head streamHead
				if err := json.Unmarshal(orig, &head); err != nil {
					return nil, err
				}
				if err := head.check(); err != nil {
					return nil, err
				}
				complete = *head.Complete && total == *head.Count
			}
			s.StreamComplete = complete && !torn
			return json.Marshal(map[string]any{"complete": s.StreamComplete, "count": count})
		},
		Seen: func(e Entry) error {
			if seen != nil {
				seen(e)
			}
			return nil
		}})
	return err
}

// Crossed says why the parts cannot be judged apart, or is empty: a
// sequence that the entries of two parts hold (the stream reused it for
// another key), or that an op refers to (its revision, the revision it
// expected, the sequence a 10071 named) while another part's key holds it
// or, where no entry holds it, an earlier op of another part's key
// referred to it.
// The checkers read such a sequence across keys, so a history where one
// occurs is judged whole.
func (s *Split) Crossed() string { return s.crossed }

// hold records that part p's entry holds seq.
func (s *Split) hold(seq uint64, p int) {
	switch h := s.seqPart.get(seq); {
	case h == 0:
		s.seqPart.set(seq, uint16(p+1))
	case int(h) != p+1 && s.crossed == "":
		s.crossed = fmt.Sprintf("sequence %d is held by keys of two parts", seq)
	}
}

// refer checks that what an op of part p refers to at seq is in p.
func (s *Split) refer(seq uint64, p int, what string, line int) {
	if seq == 0 || s.crossed != "" {
		return
	}
	switch h := s.seqPart.get(seq); {
	case h == 0:
		// No entry holds seq: the first part to refer to it claims it, so
		// that ops of two parts' keys at one sequence nobody saw (two
		// writes acknowledged with it, a get placing a write where an ack
		// names another) are judged whole too.
		s.seqPart.set(seq, uint16(p+1))
	case int(h) != p+1:
		s.crossed = fmt.Sprintf("history.jsonl line %d refers to sequence %d (%s), which another part's key holds or referred to first", line, seq, what)
	}
}

// CutOps cuts a history.jsonl into the parts, with each op's position in the
// whole (Index) and the acknowledgements (Acks). It reads and validates
// the file as ReadOps does, naming the whole file's lines.
func (s *Split) CutOps(path string) error {
	n := len(s.Dirs)
	ws := make([]*partWriter, n)
	for p := range n {
		w, err := newPartWriter(filepath.Join(s.Dirs[p], "history.jsonl"))
		if err != nil {
			closeAll(ws)
			return err
		}
		ws[p] = w
	}
	err := scanOps(path, func(int) {}, func(raw []byte, op Op) error {
		p := 0
		if op.Type != Fault && op.Client != NemesisClient {
			p = s.PartOf(op.Key)
		}
		s.sizes[p]++
		s.Index[p] = append(s.Index[p], int32(s.Ops))
		s.Ops++
		if op.Type != Fault && op.Client != NemesisClient {
			if op.Outcome == OK {
				s.refer(op.Rev, p, "its revision", s.Ops)
			}
			s.refer(op.ExpectedRev, p, "the revision it expected", s.Ops)
			s.refer(op.ErrSeq, p, "the last sequence its error named", s.Ops)
		}
		if op.IsWrite() && op.Outcome == OK && op.Type != Fault {
			s.Acks = append(s.Acks, Ack{op.Rev, op.Complete})
		}
		return ws[p].line(raw)
	})
	if err == nil {
		err = closeAll(ws)
	} else {
		closeAll(ws)
	}
	EarliestAcks(s.Acks)
	return err
}

// EarliestAcks sorts acks by revision and makes each one's Complete the
// earliest Complete of it and every later revision.
func EarliestAcks(acks []Ack) {
	slices.SortFunc(acks, func(a, b Ack) int { return cmp.Compare(a.Rev, b.Rev) })
	for i := len(acks) - 2; i >= 0; i-- {
		acks[i].Complete = min(acks[i].Complete, acks[i+1].Complete)
	}
}

// partWriter writes one part's lines.
type partWriter struct {
	f *os.File
	w *bufio.Writer
}

func newPartWriter(path string) (*partWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &partWriter{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (pw *partWriter) line(b []byte) error {
	if _, err := pw.w.Write(b); err != nil {
		return err
	}
	return pw.w.WriteByte('\n')
}

func closeAll(ws []*partWriter) error {
	var first error
	for _, w := range ws {
		if w == nil {
			continue
		}
		err := w.w.Flush()
		if cerr := w.f.Close(); err == nil {
			err = cerr
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// joinFile writes head as the first line of path, then body's bytes.
func joinFile(path string, head []byte, body string) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	in, err := os.Open(body)
	if err != nil {
		out.Close()
		return err
	}
	defer in.Close()
	w := bufio.NewWriterSize(out, 256<<10)
	w.Write(head)
	w.WriteByte('\n')
	if _, err := io.Copy(w, in); err != nil {
		out.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
