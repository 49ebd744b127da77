package queue

import (
	"path/filepath"
	"testing"
)

// The unknown reasons say why the read-back cannot vouch for what it
// lacks, as kv-update's read-back check does: a stream.jsonl cut short
// names its line (testdata/lost_torn_readback), a read-back the workload
// recorded as incomplete says it holds fewer than the stream counted, a
// missing one that there was none.
func TestReadBackReasons(t *testing.T) {
	const doubt = ", so an acknowledged value no consumer received may still be stored"
	load := func(name string) func(t *testing.T) *Cell {
		return func(t *testing.T) *Cell {
			c, err := Load(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
	}
	for _, tc := range []struct {
		name      string
		cell      func(t *testing.T) *Cell
		torn      int
		lost      string
		integrity string // "" when the check gives no reason of its own here
	}{
		{"cut short", load("lost_torn_readback"), 12,
			"the read-back holds 10 messages; stream.jsonl is cut short at line 12: the read-back did not finish" + doubt,
			"the read-back holds 10 messages; stream.jsonl is cut short at line 12: the read-back did not finish"},
		{"incomplete", load("lost_unknown"), 0,
			"the read-back holds 0 messages, fewer than the stream counted" + doubt,
			"the read-back holds 0 messages, fewer than the stream counted"},
		{"not read back", func(*testing.T) *Cell {
			c := fixtures["lost_torn_readback"].build()
			c.Stream, c.StreamRead, c.StreamComplete, c.StreamTorn = nil, false, false, 0
			return c
		}, 0, "the stream was not read back" + doubt, "the stream was not read back"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cell(t)
			if c.StreamTorn != tc.torn || c.StreamComplete {
				t.Errorf("torn at %d, complete %v; want torn at %d, incomplete", c.StreamTorn, c.StreamComplete, tc.torn)
			}
			reasons := map[string]string{}
			for _, r := range RunCheckers(c, 0) {
				reasons[r.Name] = r.Reason
			}
			if got := reasons[CheckLost]; got != tc.lost {
				t.Errorf("%s: %q, want %q", CheckLost, got, tc.lost)
			}
			if got := reasons[CheckIntegrity]; got != tc.integrity {
				t.Errorf("%s: %q, want %q", CheckIntegrity, got, tc.integrity)
			}
		})
	}
}
