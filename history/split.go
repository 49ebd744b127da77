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
// rather than the whole history (package checker's Merge puts the parts'
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

	keys  map[string]int // see PartOf
	sizes []int          // ops per part
}

// Ack is an acknowledged write: the revision it was given and when.
type Ack struct {
	Rev      uint64
	Complete int64
}

// Part says that a History is one part of a Split: see History.Part.
type Part struct {
	Index []int32
	Acks  []Ack
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

// SplitDir cuts dir's history.jsonl, and its stream.jsonl if it has one,
// into n parts, in folders part-0, part-1... under out. It reads each file
// once and validates it as ReadOps and ReadStream do, naming the whole
// file's lines; the parts are then read back with Load. seen, if not nil,
// is shown every stream entry.
func SplitDir(dir, out string, n int, seen func(Entry)) (*Split, error) {
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
	if err := s.splitOps(filepath.Join(dir, "history.jsonl")); err != nil {
		return nil, err
	}
	src := filepath.Join(dir, "stream.jsonl")
	if _, err := os.Stat(src); err != nil {
		if os.IsNotExist(err) {
			return s, nil
		}
		return nil, err
	}
	dsts := make([]string, n)
	for p := range n {
		dsts[p] = filepath.Join(s.Dirs[p], "stream.jsonl")
	}
	var head struct {
		Complete bool `json:"complete"`
		Count    int  `json:"count"`
	}
	err := s.SplitEntries(src, dsts, func(_ int, orig []byte, count, total int) ([]byte, error) {
		if err := json.Unmarshal(orig, &head); err != nil {
			return nil, err
		}
		// ReadStream calls a part complete when the whole stream was.
		return json.Marshal(map[string]any{"complete": head.Complete && total == head.Count, "count": count})
	}, seen)
	return s, err
}

func (s *Split) splitOps(path string) error {
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

// SplitEntries cuts a JSONL file of one header line and one Entry per line
// (stream.jsonl, or a workload's file of the same shape) by key
// (PartOf) into one file per part, dsts[p] for part p. Each entry is validated, and a sequence
// may appear once in the whole file. head makes part p's header line from
// the original's, once the part's entry count and the file's total are
// known. seen, if not nil, is shown every entry.
func (s *Split) SplitEntries(src string, dsts []string, head func(p int, orig []byte, count, total int) ([]byte, error), seen func(Entry)) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	n := len(s.Dirs)
	if len(dsts) != n {
		return fmt.Errorf("split %s into %d files for %d parts", src, len(dsts), n)
	}
	bodies := make([]*partWriter, n)
	for p := range n {
		if bodies[p], err = newPartWriter(dsts[p] + ".body"); err != nil {
			closeAll(bodies)
			return err
		}
	}
	defer func() {
		for p := range n {
			os.Remove(dsts[p] + ".body")
		}
	}()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	if !sc.Scan() {
		closeAll(bodies)
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s:1: %w", src, err)
		}
		return &LineError{File: src, Line: 1, Err: fmt.Errorf("empty file (want a header line)")}
	}
	orig := slices.Clone(sc.Bytes())
	counts := make([]int, n)
	seqs := seqSet{}
	line, total := 1, 0
	for sc.Scan() {
		line++
		var e Entry
		if err := decodeLine(sc.Bytes(), &e); err != nil {
			closeAll(bodies)
			return &LineError{File: src, Line: line, Err: err}
		}
		if err := e.Validate(); err != nil {
			closeAll(bodies)
			return &LineError{File: src, Line: line, Err: err}
		}
		if seqs.add(e.Seq) {
			closeAll(bodies)
			return &LineError{File: src, Line: line, Err: fmt.Errorf("sequence %d appears twice", e.Seq)}
		}
		if seen != nil {
			seen(e)
		}
		p := s.PartOf(e.Key)
		counts[p]++
		total++
		if err := bodies[p].line(sc.Bytes()); err != nil {
			closeAll(bodies)
			return err
		}
	}
	if err := sc.Err(); err != nil {
		closeAll(bodies)
		return fmt.Errorf("%s:%d: %w", src, line+1, err)
	}
	if err := closeAll(bodies); err != nil {
		return err
	}
	for p := range n {
		h, err := head(p, orig, counts[p], total)
		if err != nil {
			return fmt.Errorf("%s:1: %w", src, err)
		}
		if err := joinFile(dsts[p], h, dsts[p]+".body"); err != nil {
			return err
		}
	}
	return nil
}

// seqSet finds a repeated sequence in one bit per sequence, in words of
// 64 held in a map: a few MB for ten million sequences, in any order.
type seqSet map[uint64]uint64

func (s seqSet) add(seq uint64) (dup bool) {
	w, bit := seq/64, uint64(1)<<(seq%64)
	if s[w]&bit != 0 {
		return true
	}
	s[w] |= bit
	return false
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
