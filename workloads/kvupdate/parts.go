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
	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
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
		limit = checker.DefaultPartOps
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

// errCrossed: the cell cannot be judged in parts (history.Split.Crossed).
var errCrossed = errors.New("a sequence is read across parts")

// checkInParts judges a cell whose history is too long to hold whole, as
// CheckDir would whole: its read-back, observed.jsonl and history cut by
// key into n parts in a folder of the cell (removed after), each part
// judged alone, and the results merged (kvcheck.Merge). What only the
// whole stream knows (which sequences it holds, whether it is complete)
// is counted while cutting. It returns errCrossed, having judged nothing,
// when a sequence is held or read by keys of two parts: such a cell is
// judged whole.
func checkInParts(dir string, b Bucket, opts checker.Options, n int) ([]checker.Result, error) {
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
	// Beside the history, on its disk (a /tmp in memory would hold the
	// parts in RAM); in the temporary folder if the cell is read-only.
	tmp, err := os.MkdirTemp(dir, ".parts-")
	if err != nil {
		if tmp, err = os.MkdirTemp("", "chaos-parts-"); err != nil {
			return nil, err
		}
	}
	defer os.RemoveAll(tmp)
	cut, err := cutCell(dir, tmp, n, b)
	if err != nil {
		return nil, err
	}
	if cut.split.Crossed() != "" {
		return nil, fmt.Errorf("%w: %s", errCrossed, cut.split.Crossed())
	}
	return cut.judge(b, opts)
}

// cellCut is a cell cut into parts.
type cellCut struct {
	split  *history.Split
	seqs   history.SeqSet // the sequences of the stream the checkers judge
	hasObs bool
	whole  streamFacts // judgedStream's, for the whole stream
}

// cutCell cuts the read-back, then observed.jsonl, then the history (the
// ops are checked against the entries).
func cutCell(dir, tmp string, n int, b Bucket) (*cellCut, error) {
	split, err := history.NewSplit(tmp, n)
	if err != nil {
		return nil, err
	}
	c := &cellCut{split: split}
	merged := b.merged()
	var maxHeld uint64 // the highest sequence of the stream the checkers judge
	var readReached uint64
	err = split.CutStream(filepath.Join(dir, "stream.jsonl"), func(e history.Entry) {
		c.seqs.Add(e.Seq)
		maxHeld = max(maxHeld, e.Seq)
		readReached = max(readReached, e.Seq)
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	obsPath := filepath.Join(dir, ObservedFile)
	_, err = os.Stat(obsPath)
	if c.hasObs = err == nil; err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var head ObservedHead
	var order observedOrder
	if c.hasObs {
		_, err := split.CutEntries(obsPath, history.EntryFile{Name: ObservedFile, Head: func(p int, orig []byte, count, total int, _ bool) ([]byte, error) {
			if err := json.Unmarshal(orig, &head); err != nil {
				return nil, err
			}
			if total != head.Count {
				return nil, fmt.Errorf("%d entries, the head says %d", total, head.Count) // as ReadObserved
			}
			part := head
			part.Count, part.Conflicts = count, nil
			for _, e := range head.Conflicts {
				if split.PartOf(e.Key) == p {
					part.Conflicts = append(part.Conflicts, e)
				}
			}
			return json.Marshal(part)
		}, Seen: func(e history.Entry) error {
			if merged {
				c.seqs.Add(e.Seq)
				maxHeld = max(maxHeld, e.Seq)
			}
			return order.next(e) // as ReadObserved
		}})
		if err != nil {
			return nil, err
		}
	}
	heads := &head
	if !c.hasObs {
		heads = nil
	}
	c.whole = b.judgedStream(split.StreamComplete, heads, c.seqs.Len(), maxHeld)
	c.whole.readReached = readReached
	return c, split.CutOps(filepath.Join(dir, "history.jsonl"))
}

// judge judges the parts one at a time and merges their results.
func (c *cellCut) judge(b Bucket, opts checker.Options) ([]checker.Result, error) {
	n := len(c.split.Dirs)
	per := make([][]checker.Result, n)
	var done []checker.Result
	for p, d := range c.split.Dirs {
		// Collect the last part's garbage now: the heap then grows from
		// what is live, not from the last part's peak, and a check in parts
		// peaks at about what its largest part needs.
		runtime.GC()
		h, err := history.Load(d)
		if err != nil {
			return nil, fmt.Errorf("part %d of %d: %w", p+1, n, err)
		}
		h.Part = &history.Part{Index: c.split.Index[p], Acks: c.split.Acks, Seqs: &c.seqs}
		h.StreamTorn = c.split.StreamTorn
		var obs *observedFile
		if c.hasObs {
			entries, ph, err := ReadObserved(filepath.Join(d, ObservedFile))
			if err != nil {
				return nil, fmt.Errorf("part %d of %d: %w", p+1, n, err)
			}
			obs = &observedFile{entries: entries, head: ph}
		}
		per[p] = kvcheck.Run(h, b.checks(&h, obs, &c.whole, kvcheck.PartOptions(opts, done)))
		done = append(done, per[p]...)
	}
	var whole history.History
	merging := b.checks(&whole, nil, nil, opts)
	out := make([]checker.Result, len(merging))
	for i, ch := range merging {
		parts := make([]checker.Result, n)
		for p := range per {
			parts[p] = per[p][i]
		}
		out[i] = kvcheck.Merge(ch, opts, parts, c.split.Index)
	}
	return out, nil
}
