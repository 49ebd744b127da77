package history

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// EntryFile says how CutEntries cuts a JSONL file of one header line and
// one Entry per line (stream.jsonl, or a workload's file of that shape).
type EntryFile struct {
	// Name is the file's name in each part.
	Name string
	// Head makes part p's header line from the original's (nil when it
	// is the line cut short), once the part's entry count, the file's
	// total and whether its last line was cut short are known.
	Head func(p int, orig []byte, count, total int, torn bool) ([]byte, error)
	// Seen, if not nil, is shown every entry in the file's order; an error
	// it returns is the entry line's.
	Seen func(Entry) error
	// TornLast: a last line cut short (its writer was interrupted) ends
	// the file, as ReadStream reads stream.jsonl, and Torn says so;
	// otherwise it is an error like any line that does not parse.
	TornLast bool
}

// CutEntries cuts the file src by key (PartOf) into a file called f.Name
// in each part. Each entry is validated, a sequence may appear once in
// the file, and one that another file's entries of another part held
// makes the split Crossed. It returns the line cut short when f.TornLast
// allowed it, or 0.
func (s *Split) CutEntries(src string, f EntryFile) (torn int, err error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	n := len(s.Dirs)
	dsts := make([]string, n)
	bodies := make([]*partWriter, n)
	defer func() {
		closeAll(bodies)
		for p := range n {
			os.Remove(dsts[p] + ".body")
		}
	}()
	for p := range n {
		dsts[p] = filepath.Join(s.Dirs[p], f.Name)
		if bodies[p], err = newPartWriter(dsts[p] + ".body"); err != nil {
			return 0, err
		}
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return 0, fmt.Errorf("%s:1: %w", src, err)
		}
		return 0, &LineError{File: src, Line: 1, Err: fmt.Errorf("empty file (want a header line)")}
	}
	orig := slices.Clone(sc.Bytes())
	counts := make([]int, n)
	var seqs SeqSet
	line, total := 1, 0
	var bad *LineError // a line that does not parse: torn if it is the last
	if f.TornLast && !json.Valid(orig) {
		bad = &LineError{File: src, Line: 1, Err: json.Unmarshal(orig, new(any))}
	}
	for sc.Scan() {
		line++
		if bad != nil {
			return 0, bad
		}
		var e Entry
		if err := decodeLine(sc.Bytes(), &e); err != nil {
			if bad = (&LineError{File: src, Line: line, Err: err}); !f.TornLast || !isTorn(err) {
				return 0, bad
			}
			continue
		}
		if err := s.cutEntry(e, &seqs, f.Seen); err != nil {
			return 0, &LineError{File: src, Line: line, Err: err}
		}
		p := s.PartOf(e.Key)
		counts[p]++
		total++
		if err := bodies[p].line(sc.Bytes()); err != nil {
			return 0, err
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s:%d: %w", src, line+1, err)
	}
	if bad != nil {
		torn = bad.Line
		if torn == 1 {
			orig = nil
		}
	}
	if err := closeAll(bodies); err != nil {
		return 0, err
	}
	for p := range n {
		h, err := f.Head(p, orig, counts[p], total, torn > 0)
		if err != nil {
			return 0, fmt.Errorf("%s:1: %w", src, err)
		}
		if err := joinFile(dsts[p], h, dsts[p]+".body"); err != nil {
			return 0, err
		}
	}
	return torn, nil
}

// cutEntry validates an entry of a file being cut, shows it to seen, and
// records which part holds its sequence.
func (s *Split) cutEntry(e Entry, seqs *SeqSet, seen func(Entry) error) error {
	if err := e.Validate(); err != nil {
		return err
	}
	if seen != nil {
		if err := seen(e); err != nil {
			return err
		}
	}
	if !seqs.Add(e.Seq) {
		return fmt.Errorf("sequence %d appears twice", e.Seq)
	}
	p := s.PartOf(e.Key)
	s.sizes[p]++
	s.hold(e.Seq, p)
	return nil
}
