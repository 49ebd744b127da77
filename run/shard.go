package run

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// ErrNotShards marks a merge refused because its folders are not every
// shard of one run, once each: a usage error, not a harness one.
var ErrNotShards = errors.New("not the shards of one run")

// refuse is a merge refusal: one line, wrapping ErrNotShards.
func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotShards, fmt.Sprintf(format, args...))
}

// validateShard refuses a --shard the run cannot honour. --bisect picks
// each release to probe from the last probe's outcome and --until-fail
// stops the whole run at its first anomaly: a shard cannot see the other
// shards' outcomes, so its slice would not be the unsharded run's.
func validateShard(s record.Spec) error {
	switch {
	case s.Shard == nil:
		return nil
	case s.Shard.Index < 1 || s.Shard.Index > s.Shard.Count:
		return fmt.Errorf("--shard %s: want 1 <= I <= N", s.Shard)
	case s.Bisect:
		return fmt.Errorf("--shard does not go with --bisect: each probe depends on the one before, so a bisection runs on one machine")
	case s.UntilFail:
		return fmt.Errorf("--shard does not go with --until-fail: it stops at the first failing run of the whole matrix, which no one shard sees")
	}
	return nil
}

// shardRun is one shard's stored run.
type shardRun struct {
	dir string
	res record.Result
}

// readShards reads each folder's results.json; a folder without one
// (not a run, or a shard that did not finish) is refused.
func readShards(dirs []string) ([]shardRun, error) {
	var out []shardRun
	for _, d := range dirs {
		res, err := record.ReadResult(d)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, refuse("%s holds no %s: not a finished run", d, record.ResultFile)
		case err != nil:
			return nil, err
		case res.Spec.Shard == nil:
			return nil, refuse("%s is not a shard: its run had no --shard", d)
		}
		out = append(out, shardRun{dir: d, res: res})
	}
	if len(out) == 0 {
		return nil, refuse("no shard given")
	}
	return out, nil
}

// checkShards refuses shards that are not every shard of spec (the
// merged spec, no shard) once each: of another spec or another split,
// one given twice or missing, or holding cells that are not its own. A
// shard whose slice is empty ran nothing and stored nothing; it may be
// left out.
func checkShards(spec record.Spec, shards []shardRun) error {
	first := shards[0]
	want := specFields(first.res.Spec)
	n := first.res.Spec.Shard.Count
	byIndex := map[int]shardRun{}
	for _, s := range shards {
		sh := *s.res.Spec.Shard
		if sh.Count != n {
			return refuse("%s is shard %s and %s is shard %s: not one split", first.dir, first.res.Spec.Shard, s.dir, sh)
		}
		if field := firstDiff(want, specFields(s.res.Spec)); field != "" {
			return refuse("%s and %s are shards of different runs: their %q differs", first.dir, s.dir, field)
		}
		if other, ok := byIndex[sh.Index]; ok {
			return refuse("shard %s given twice: %s and %s", sh, other.dir, s.dir)
		}
		byIndex[sh.Index] = s
	}
	all := spec.AllCells()
	for i := 1; i <= n; i++ {
		sh := record.Shard{Index: i, Count: n}
		units := sh.Of(all)
		s, ok := byIndex[i]
		if !ok {
			if len(units) > 0 {
				return refuse("shard %s is missing (%d of the %d cells and runs)", sh, len(units), len(all))
			}
			continue
		}
		if err := checkShardCells(s, units); err != nil {
			return err
		}
	}
	return nil
}

// checkShardCells refuses a shard holding a cell that is not one of its
// units, or lacking one when it was not interrupted.
func checkShardCells(s shardRun, units []record.Cell) error {
	mine := map[string]bool{}
	for _, u := range units {
		mine[u.Name] = true
	}
	for _, c := range s.res.Cells {
		if !mine[c.Name] {
			return refuse("%s holds cell %s, which is not shard %s's", s.dir, c.Name, s.res.Spec.Shard)
		}
	}
	if len(s.res.Cells) < len(units) && !s.res.Interrupted {
		return refuse("%s ran %d of shard %s's %d cells and was not interrupted", s.dir, len(s.res.Cells), s.res.Spec.Shard, len(units))
	}
	return nil
}

// specFields is a shard's spec as its fields, apart from what differs
// between shards of one run: the shard, and the store each wrote to.
func specFields(s record.Spec) map[string]string {
	s.Shard, s.Store = nil, ""
	s.Command = record.DropFlags(s.Command, "--shard", "--store")
	b, _ := json.Marshal(s)
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(b, &raw)
	out := map[string]string{}
	for k, v := range raw {
		out[k] = string(v)
	}
	return out
}

// firstDiff is the first field, by name, in which a and b differ.
func firstDiff(a, b map[string]string) string {
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if a[k] != b[k] {
			return k
		}
	}
	return ""
}
