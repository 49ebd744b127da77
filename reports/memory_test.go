package reports

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// A cell folder holding the catch-up workload's catchup.json gets the
// memory chart: usage, RSS, the limit as it changed, OOM kills and the
// harness's own kill, wipe and start.
func TestMemoryFromCatchup(t *testing.T) {
	dir := unpackRun(t)
	writeCatchupResult(t, filepath.Join(dir, "direct-get-off"))
	page := pageOf(t, dir)
	for _, w := range []string{"Memory per node", "n2 RSS", "n2 limit", "OOM n2", "n2 OOM-killed at 30.0s: exit 137", "wipe n2", "start n2",
		"no memory samples recorded for this cell"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

// writeCatchupResult saves a made-up catchup.json: n2 is killed, wiped,
// restarted under a 400 MiB limit and OOM-killed.
func writeCatchupResult(t testing.TB, cellDir string) {
	t.Helper()
	var r catchup.Result
	for i, n := range []string{"n1", "n2", "n3"} {
		nm := catchup.NodeMemory{Node: n}
		for ms := int64(0); ms <= 60000; ms += 250 {
			v := int64(200<<20) + ms*int64(i+1)*1000
			if n == "n2" && ms > 30000 {
				v = int64(50<<20) + (ms-30000)*2000
			}
			nm.Usage.T, nm.Usage.V = append(nm.Usage.T, ms), append(nm.Usage.V, v)
			nm.RSS.T, nm.RSS.V = append(nm.RSS.T, ms), append(nm.RSS.V, v*2/3)
		}
		if n == "n2" {
			nm.Limit.T, nm.Limit.V = []int64{0, 20000}, []int64{0, 400 << 20}
		}
		r.Memory = append(r.Memory, nm)
	}
	r.Events = []catchup.Event{
		{TMs: 10000, Node: "n2", Kind: catchup.EvKill},
		{TMs: 10100, Node: "n2", Kind: catchup.EvWipe},
		{TMs: 20000, Node: "n2", Kind: catchup.EvStart},
		{TMs: 30000, Node: "n2", Kind: catchup.EvOOMKill, Detail: "exit 137"},
		{TMs: 30400, Node: "n2", Kind: catchup.EvRestart},
	}
	if err := catchup.Save(cellDir, r); err != nil {
		t.Fatal(err)
	}
}

func TestPeakPointsKeepsSpikes(t *testing.T) {
	var s []MemSample
	for i := int64(0); i < 10000; i++ {
		b := int64(100)
		if i == 4321 {
			b = 999
		}
		s = append(s, MemSample{T: i * 1e6, Bytes: b})
	}
	pts := peakPoints(s, 10)
	if len(pts) > maxMemPoints {
		t.Errorf("%d points, bound %d", len(pts), maxMemPoints)
	}
	found := false
	for _, p := range pts {
		found = found || p.Y == 999
	}
	if !found {
		t.Error("the spike was smoothed away")
	}
}
