package record

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"1/2", Shard{1, 2}, ""},
		{"2/2", Shard{2, 2}, ""},
		{"1/1", Shard{1, 1}, ""},
		{" 3 / 8 ", Shard{3, 8}, ""},
		{"0/2", Shard{}, "1 <= I <= N"},
		{"3/2", Shard{}, "1 <= I <= N"},
		{"1/0", Shard{}, "1 <= I <= N"},
		{"-1/2", Shard{}, "1 <= I <= N"},
		{"a/b", Shard{}, "want I/N"},
		{"2", Shard{}, "want I/N"},
		{"", Shard{}, "want I/N"},
		{"1/2/3", Shard{}, "want I/N"},
	} {
		got, err := ParseShard(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("ParseShard(%q) = %v, %v; want one line with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want || got.String() != strings.ReplaceAll(tc.in, " ", "") {
			t.Errorf("ParseShard(%q) = %v (%s), %v", tc.in, got, got, err)
		}
	}
}

// Every unit (cell and run) is in exactly one shard, in the unsharded
// order, with the unsharded seed; shards differ in size by one at most,
// and a shard past the units is empty.
func TestShardsPartitionTheUnits(t *testing.T) {
	spec := Spec{Workload: "no-tags", DirectGet: []bool{true, false}, ServerVersions: []string{"v2.14.9", "v2.15.3"},
		Nemeses: []string{"none", "kill"}, Settings: []json.RawMessage{json.RawMessage(`{}`)}, Seed: 41, Runs: 3}
	all := spec.AllCells()
	if len(all) != 24 || len(spec.Cells()) != 24 {
		t.Fatalf("%d cells, %d without a shard; want 24", len(all), len(spec.Cells()))
	}
	for _, n := range []int{1, 2, 3, 5, 7, 24, 25, 40} {
		seen := map[string]int{}
		var sizes []int
		for i := 1; i <= n; i++ {
			s := spec
			s.Shard = &Shard{Index: i, Count: n}
			cells := s.Cells()
			sizes = append(sizes, len(cells))
			last := -1
			for _, c := range cells {
				seen[c.Name]++
				k := indexOf(all, c.Name)
				if k <= last || all[k].Seed != c.Seed || all[k].Repeat != c.Repeat {
					t.Errorf("%d/%d: %s out of order or reseeded: %+v, unsharded %+v", i, n, c.Name, c, all[k])
				}
				last = k
			}
		}
		for _, c := range all {
			if seen[c.Name] != 1 {
				t.Errorf("N=%d: %s in %d shards", n, c.Name, seen[c.Name])
			}
		}
		lo, hi := sizes[0], sizes[0]
		for _, z := range sizes {
			lo, hi = min(lo, z), max(hi, z)
		}
		if hi-lo > 1 || (n > len(all) && lo != 0) {
			t.Errorf("N=%d: shard sizes %v", n, sizes)
		}
	}
}

func indexOf(cells []Cell, name string) int {
	for i, c := range cells {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// An --expect naming another shard's cells is not a typo in a shard; in
// a run of all the cells it is.
func TestShardExpectationOfAnotherShardIsUsed(t *testing.T) {
	spec := Spec{Workload: "no-tags", DirectGet: []bool{true, false}, ServerVersions: []string{"v2.15.3"},
		Nemeses: []string{"none"}, Settings: []json.RawMessage{json.RawMessage(`{}`)}, Seed: 3}
	exps := []Expectation{{Cells: "direct-get-off", Anomaly: "stale-reads"}, {Cells: "typo", Anomaly: "stale-reads"}}
	for _, tc := range []struct {
		shard  *Shard
		unused int
	}{
		{&Shard{Index: 1, Count: 2}, 1}, // holds direct-get-on; direct-get-off is shard 2's
		{nil, 2},                        // the one cell below is all the run ran
	} {
		s := spec
		s.Shard = tc.shard
		res := Result{Spec: s, Verdict: Valid, Cells: []CellResult{{Cell: Cell{Name: "direct-get-on"}, Verdict: Valid}}}
		_, unused := JudgeRun(res, exps)
		if len(unused) != tc.unused || unused[len(unused)-1].Cells != "typo" {
			t.Errorf("shard %v: unused %v, want %d ending in the typo", tc.shard, unused, tc.unused)
		}
	}
}
