package observe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefuses: nodes.jsonl must start with its start line, hold known
// kinds naming their node, and nothing after its stop line; an empty file
// is no record. A torn last line is left out (TestCheckFixtures/cut_short).
func TestLoadRefuses(t *testing.T) {
	const start = `{"t_ns":0,"kind":"start","nodes":["n1"],"every_ns":250000000}` + "\n"
	for _, tc := range []struct{ name, body, err string }{
		{"empty", "", "empty: the observer never wrote its start line"},
		{"no start line", `{"t_ns":5,"node":"n1","kind":"usage","bytes":1}` + "\n", `:1: the first line is a "usage"`},
		{"two start lines", start + start, ":2: a second start line"},
		{"unknown kind", start + `{"t_ns":5,"node":"n1","kind":"cpu"}` + "\n", `:2: unknown kind "cpu"`},
		{"no node", start + `{"t_ns":5,"kind":"rss","bytes":1}` + "\n", `:2: a "rss" line names no node`},
		{"after stop", start + `{"t_ns":9,"kind":"stop"}` + "\n" + `{"t_ns":10,"node":"n1","kind":"rss","bytes":1}` + "\n", `:3: a "rss" after the stop line`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, File), []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Load = %+v, %v; want an error saying %q", r, err, tc.err)
			}
		})
	}
}

// TestRecordSeries: a record's readings as the checks and charts read
// them, in ms: memory by node in the cluster's order, state readings with
// when they were asked, health answers OK only on 200.
func TestRecordSeries(t *testing.T) {
	rec, err := Load(filepath.Join("testdata", "health", "oom_no_restart"))
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Complete || rec.End != 10_300_000_000 || len(rec.Nodes) != 3 {
		t.Errorf("record: complete %v, end %d, nodes %v", rec.Complete, rec.End, rec.Nodes)
	}
	mem := rec.Memory()
	if len(mem) != 3 || mem[1].Node != "n2" || len(mem[1].Usage.T) != 40 || mem[1].Usage.T[0] != 249 {
		t.Errorf("memory: %d nodes, n2 %+v", len(mem), mem[1].Usage.T[:1])
	}
	st := rec.States()
	if len(st) != 120 || st[1].Node != "n2" || st[1].AskedMs != 246 || st[1].TMs != 251 {
		t.Errorf("states: %d, second %+v", len(st), st[1])
	}
	h := (&Record{Samples: []Sample{{Kind: KindHealth, Node: "n1", Status: 200}, {Kind: KindHealth, Node: "n1", Status: 503, Err: "not current"}}}).Health()
	if !h[0].OK || h[1].OK || h[1].Error != "not current" {
		t.Errorf("health: %+v", h)
	}
}
