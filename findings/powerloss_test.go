package findings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// A finding of a cell whose nodes lost power says first that NATS
// documents such a loss under any sync_interval but always, and is quiet
// when no power was cut, or the power-loss window was never injected.
func TestPowerLossCaveat(t *testing.T) {
	cut := nemesis.Window{Fault: "power-loss-majority", Targets: []string{"n1", "n3"}, Injected: true}
	for _, tc := range []struct {
		name     string
		faults   []nemesis.Window
		spec     bool
		interval string
		want     []string // "" wants no caveat
		filing   bool
	}{
		{"no fault", nil, true, "", []string{""}, false},
		{"a kill only", []nemesis.Window{{Fault: "kill", Targets: []string{"n1"}, Injected: true}}, true, "", []string{""}, false},
		{"refused", []nemesis.Window{{Fault: "power-loss", Targets: []string{"n1"}}}, true, "", []string{""}, false},
		{"default interval", []nemesis.Window{cut}, true, "",
			[]string{"**Before filing:** nodes lost power in the fault windows on n1, n3", "the default `sync_interval` (2m, nats-server `server/filestore.go`)", "--sync-interval always"}, true},
		{"set interval, in a combination", []nemesis.Window{{Fault: "pause-kill+power-loss", Targets: []string{"n2"}, Injected: true}}, true, "10s",
			[]string{"**Before filing:** nodes lost power in the fault windows on n2", "`sync_interval: 10s`"}, true},
		{"not recorded", []nemesis.Window{cut}, false, "", []string{"**Before filing:**", "did not record the nodes' `sync_interval`"}, true},
		{"always", []nemesis.Window{cut}, true, "always", []string{"`sync_interval: always`", "do not explain it"}, false},
	} {
		c := &cell{res: record.CellResult{Faults: tc.faults}, run: runInfo{HasSpec: tc.spec, SyncInterval: tc.interval}}
		got := c.powerLossCaveat()
		for _, w := range tc.want {
			if (w == "" && got != "") || !strings.Contains(got, w) {
				t.Errorf("%s: caveat %q, want %q", tc.name, got, w)
			}
		}
		if tc.filing != strings.Contains(got, "Before filing") {
			t.Errorf("%s: caveat %q: before-filing %v, want %v", tc.name, got, !tc.filing, tc.filing)
		}
	}
}

// End to end: the stored lost-stream-head cell, as if one of its windows
// had cut power under the default interval, gets the caveat at the top of
// its section and in the list, and the finding says so.
func TestPowerLossCaveatInFinding(t *testing.T) {
	root := copyTree(t, filepath.Join("testdata", "lost-stream-head"))
	m, _ := filepath.Glob(filepath.Join(root, "*", "*", "results.json"))
	if len(m) != 1 {
		t.Fatalf("want one cell, found %v", m)
	}
	dir := filepath.Dir(m[0])
	raw, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	res, err := record.DecodeCell(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Faults) == 0 {
		t.Fatal("the cell has no fault window to turn into a power loss")
	}
	res.Faults[0].Fault, res.Faults[0].Injected = "power-loss", true
	fs, err := WriteResult(dir, res)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 || !fs[0].AfterPowerLoss {
		t.Fatalf("findings %+v: want the first after a power loss", fs)
	}
	s := sectionText(t, string(md), fs[0].Class)
	if i := strings.Index(s, "> **Before filing:**"); i < 0 || i > strings.Index(s, "### What the client was promised") {
		t.Errorf("the caveat is not before the promise:\n%s", s)
	}
	if !strings.Contains(string(md), "(after a power loss: read the note before filing)") {
		t.Error("the list of findings does not flag it")
	}
}
