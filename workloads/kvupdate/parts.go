package kvupdate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// partsHeapLimit is the soft memory limit of a check in parts: about
// twice what a part of checker.Options.PartOps ops holds live.
const partsHeapLimit = 900 << 20

// partsFor is how many parts a cell's history is judged in: one while it
// has at most opts.PartOps ops, else enough for about PartOps each.
func partsFor(dir string, opts checker.Options) (int, error) {
	limit := opts.PartOps
	if limit == 0 {
		limit = 1_000_000 // checker.Options' default
	}
	if limit < 0 {
		return 1, nil
	}
	lines, err := history.CountLines(filepath.Join(dir, "history.jsonl"))
	if err != nil || lines <= limit {
		return 1, err
	}
	return (lines + limit - 1) / limit, nil
}

// checkInParts judges a cell whose history is too long to hold whole, as
// CheckDir would whole: its history, read-back and observed.jsonl cut by
// key into n parts in a folder of the cell (removed after), each part
// judged alone, and the results merged (checker.Merge). Only the whole
// knows whether every sequence of the stream is known, so that is
// counted while cutting.
func checkInParts(dir string, b Bucket, opts checker.Options, n int) ([]checker.Result, error) {
	// Beside the history, on its disk (a /tmp in memory would hold the
	// parts in RAM); in the temporary folder if the cell is read-only.
	// The GC lets the heap grow to twice what is live before it collects
	// (GOGC=100); while the parts are judged it is asked to keep the heap
	// under partsHeapLimit instead, unless GOMEMLIMIT asks for less. What
	// is live is one part, so the GC only works harder near the limit.
	if old := debug.SetMemoryLimit(-1); old > partsHeapLimit {
		debug.SetMemoryLimit(partsHeapLimit)
		defer debug.SetMemoryLimit(old)
	}
	// A check killed half-way leaves its parts behind: not read, but large.
	if old, _ := filepath.Glob(filepath.Join(dir, ".parts-*")); len(old) > 0 {
		for _, o := range old {
			os.RemoveAll(o)
		}
	}
	tmp, err := os.MkdirTemp(dir, ".parts-")
	if err != nil {
		if tmp, err = os.MkdirTemp("", "chaos-parts-"); err != nil {
			return nil, err
		}
	}
	defer os.RemoveAll(tmp)
	var seqs seqCount
	var lastRead uint64 // the read-back's last sequence
	split, err := history.SplitDir(dir, tmp, n, func(e history.Entry) {
		seqs.add(e)
		lastRead = max(lastRead, e.Seq)
	})
	if err != nil {
		return nil, err
	}
	obsPath := filepath.Join(dir, ObservedFile)
	_, err = os.Stat(obsPath)
	hasObs := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var head ObservedHead
	if hasObs {
		dsts := make([]string, n)
		for p := range dsts {
			dsts[p] = filepath.Join(split.Dirs[p], ObservedFile)
		}
		err := split.SplitEntries(obsPath, dsts, func(p int, orig []byte, count, _ int) ([]byte, error) {
			if err := json.Unmarshal(orig, &head); err != nil {
				return nil, err
			}
			part := head
			part.Count, part.Conflicts = count, nil
			for _, e := range head.Conflicts {
				if split.PartOf(e.Key) == p {
					part.Conflicts = append(part.Conflicts, e)
				}
			}
			return json.Marshal(part)
		}, seqs.add)
		if err != nil {
			return nil, err
		}
	}
	// mergeStreams' completeness, for the whole stream.
	complete := seqs.distinct == max(head.LastSeq, lastRead)
	per := make([][]checker.Result, n)
	var done []checker.Result
	for p, d := range split.Dirs {
		// Collect the last part's garbage now: the heap then grows from
		// what is live, not from the last part's peak, and a check in parts
		// peaks at about what its largest part needs.
		runtime.GC()
		h, err := history.Load(d)
		if err != nil {
			return nil, fmt.Errorf("part %d of %d: %w", p+1, n, err)
		}
		h.Part = &history.Part{Index: split.Index[p], Acks: split.Acks}
		var obs *observedFile
		if hasObs {
			entries, ph, err := ReadObserved(filepath.Join(d, ObservedFile))
			if err != nil {
				return nil, fmt.Errorf("part %d of %d: %w", p+1, n, err)
			}
			obs = &observedFile{entries: entries, head: ph, complete: &complete}
		}
		per[p] = checker.Run(h, b.checks(&h, obs, checker.PartOptions(opts, done)))
		done = append(done, per[p]...)
	}
	var whole history.History
	merging := b.checks(&whole, nil, opts)
	out := make([]checker.Result, len(merging))
	for i, c := range merging {
		parts := make([]checker.Result, n)
		for p := range per {
			parts[p] = per[p][i]
		}
		out[i] = checker.Merge(c, opts, parts, split.Index)
	}
	return out, nil
}

// seqCount counts the distinct stream sequences it is shown, one bit each.
type seqCount struct {
	words    map[uint64]uint64
	distinct uint64
}

func (s *seqCount) add(e history.Entry) {
	if s.words == nil {
		s.words = map[uint64]uint64{}
	}
	w, bit := e.Seq/64, uint64(1)<<(e.Seq%64)
	if s.words[w]&bit == 0 {
		s.words[w] |= bit
		s.distinct++
	}
}
