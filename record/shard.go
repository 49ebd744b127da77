package record

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one of Count slices of a run (--shard Index/Count, Index from
// 1): several machines each run one, and `chaos report --merge` joins
// their run folders into the run one machine would have stored.
//
// A run's units are its cells as Spec.AllCells expands them, every run of
// --runs its own unit, in that stable order; unit k (from 0) belongs to
// shard k mod Count + 1. The order comes from the spec alone (its axes'
// values as given, names, never a map or a clock), so every machine
// slices one spec alike, and dealing the units out in turn keeps the
// shards within one unit of each other's size: the slowest shard is the
// run's wall time, and a hash of the cell names would leave some shards
// twice as long as others on a matrix of ten cells. What dealing gives up
// is that a unit stays in its shard when the matrix grows; nothing needs
// that, as only shards of one spec merge.
//
// Each unit keeps the seed it has in the whole run (Cell.Seed from
// --seed and its run number), so a shard runs exactly the cells the
// unsharded run would have.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard reads I/N, 1 <= I <= N.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, ierr := strconv.Atoi(strings.TrimSpace(i))
	count, nerr := strconv.Atoi(strings.TrimSpace(n))
	switch {
	case !ok || ierr != nil || nerr != nil:
		return Shard{}, fmt.Errorf("--shard %q: want I/N, e.g. 1/4 for the first of four", s)
	case count < 1 || index < 1 || index > count:
		return Shard{}, fmt.Errorf("--shard %s: want 1 <= I <= N", s)
	}
	return Shard{Index: index, Count: count}, nil
}

// String is the shard as --shard takes it: "2/4".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Holds says whether unit k (from 0, in Spec.AllCells order) is this
// shard's.
func (s Shard) Holds(k int) bool { return s.Count > 0 && k%s.Count == s.Index-1 }

// Of is this shard's units of all, in their order.
func (s Shard) Of(all []Cell) []Cell {
	var out []Cell
	for k, c := range all {
		if s.Holds(k) {
			out = append(out, c)
		}
	}
	return out
}
