package kvcheck

import (
	"slices"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// linLayout places the model ops of a history's client ops in key order
// (keys sorted, each key's ops in history order), so that a batch of keys
// is built by reading the history in order, a contiguous part per worker:
// reading a key's ops where they lie, scattered over the history, spent
// most of the check waiting on memory.
type linLayout struct {
	keys  []string // sorted
	rank  []int32  // per history op: its key's index in keys, or -1
	start []int    // key k's ops go at [start[k], start[k+1])
	parts []int    // part p of the history is ops [parts[p], parts[p+1])
	pos   [][]int  // pos[p][k]: the next place of part p's ops of key k
}

func newLinLayout(ops []history.Op, nparts int) *linLayout {
	l := &linLayout{rank: make([]int32, len(ops))}
	ids := map[string]int32{}
	for i := range ops {
		o := &ops[i]
		if !isClientOp(o) || o.Key == "" {
			l.rank[i] = -1
			continue
		}
		id, ok := ids[o.Key]
		if !ok {
			id = int32(len(l.keys))
			ids[o.Key] = id
			l.keys = append(l.keys, o.Key)
		}
		l.rank[i] = id
	}
	order := make([]int32, len(l.keys)) // order[r]: the id of the r-th key
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(l.keys[a], l.keys[b]) })
	rankOf, sorted := make([]int32, len(order)), make([]string, len(order))
	for r, id := range order {
		rankOf[id], sorted[r] = int32(r), l.keys[id]
	}
	l.keys = sorted
	nparts = max(1, min(nparts, len(ops)))
	l.parts, l.pos = make([]int, nparts+1), make([][]int, nparts)
	for p := range l.pos {
		l.parts[p+1] = len(ops) * (p + 1) / nparts
		l.pos[p] = make([]int, len(l.keys))
		for i := l.parts[p]; i < l.parts[p+1]; i++ {
			if id := l.rank[i]; id >= 0 {
				l.rank[i] = rankOf[id]
				l.pos[p][l.rank[i]]++
			}
		}
	}
	l.start = make([]int, len(l.keys)+1)
	for k := range l.keys {
		at := l.start[k]
		for p := range l.pos {
			n := l.pos[p][k]
			l.pos[p][k] = at
			at += n
		}
		l.start[k+1] = at
	}
	return l
}

// batches cuts the keys into batches of about linBatchOps ops (whole keys)
// and returns where each ends and the most ops one holds.
func (l *linLayout) batches() (ends []int, largest int) {
	for next := 0; next < len(l.keys); {
		from := next
		for next < len(l.keys) && l.start[next]-l.start[from] < linBatchOps {
			next++
		}
		ends, largest = append(ends, next), max(largest, l.start[next]-l.start[from])
	}
	return ends, largest
}

// planBatch builds the model ops of keys [lo, hi), narrows them and cuts
// them into jobs, a key per worker at a time. It returns the jobs in key
// order and the keys that have ops to check, and adds the workers' tallies
// to counts. Nothing outlives the batch but its verdicts, so every batch
// reuses b's memory.
func (b *linBuilder) planBatch(l *linLayout, lo, hi, chunkOps, workers int, counts map[string]int) ([]linJob, []string) {
	base, n := l.start[lo], l.start[hi]-l.start[lo]
	all, ptrs, valid := b.arena[:n], b.ptrs[:n], b.valid[:n]
	tallies := make([]map[string]int, workers)
	for w := range tallies {
		tallies[w] = map[string]int{}
	}
	forEach(len(l.parts)-1, workers, func(w, p int) {
		pos := l.pos[p]
		for i := l.parts[p]; i < l.parts[p+1]; i++ {
			if r := int(l.rank[i]); r >= lo && r < hi {
				s := pos[r] - base
				pos[r]++
				valid[s] = b.convert(int32(i), &all[s], tallies[w])
			}
		}
	})
	perKey := make([][]linJob, hi-lo)
	checked := make([]bool, hi-lo)
	forEach(hi-lo, workers, func(w, k int) {
		from, to := l.start[lo+k]-base, l.start[lo+k+1]-base
		ops := ptrs[from:from:to]
		for s := from; s < to; s++ {
			if valid[s] {
				ops = append(ops, &all[s])
			}
		}
		if len(ops) > 0 {
			tallies[w]["ops_checked"] += len(ops)
			checked[k] = true
			perKey[k] = planKey(l.keys[lo+k], ops, chunkOps, tallies[w])
		}
	})
	for _, t := range tallies {
		for k, v := range t {
			if k == "max_piece_ops" {
				counts[k] = max(counts[k], v)
			} else {
				counts[k] += v
			}
		}
	}
	total := 0
	for _, js := range perKey {
		total += len(js)
	}
	jobs := make([]linJob, 0, total)
	var withOps []string
	for k, js := range perKey {
		if checked[k] {
			withOps = append(withOps, l.keys[lo+k])
			jobs = append(jobs, js...)
		}
	}
	return jobs, withOps
}
