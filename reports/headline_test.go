package reports

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/run"
)

// cellOf makes a cell result with the given checks (nil: a harness error).
func cellOf(dg bool, nemesis string, checks checksOpts, harness string) run.CellResult {
	spec := baseSpec("h")
	c := run.Cell{DirectGet: dg, ServerVersion: "v2.15.3", Nemesis: nemesis}
	c.Name = "direct-get-" + onOff(dg)
	if nemesis != "none" {
		c.Name = nemesis + "_" + c.Name
	}
	if harness != "" {
		cr := mkCell("store/x", spec, c, nil, nil, nil)
		cr.Verdict, cr.Error = run.Error, harness
		return cr
	}
	return mkCell("store/x", spec, c, mkChecks(checks), nil, nil)
}

// resultOf makes a run of the cells; its spec asks for exactly the Direct
// Get settings and nemeses they have.
func resultOf(cells ...run.CellResult) run.Result {
	res := run.Result{ID: "r", Verdict: run.Valid, Spec: baseSpec("r")}
	res.Spec.DirectGet, res.Spec.Nemeses = nil, nil
	seenDG, seenN := map[bool]bool{}, map[string]bool{}
	for _, c := range cells {
		res.Cells = append(res.Cells, c)
		res.Verdict = worse(res.Verdict, c.Verdict)
		if !seenDG[c.DirectGet] {
			seenDG[c.DirectGet] = true
			res.Spec.DirectGet = append(res.Spec.DirectGet, c.DirectGet)
		}
		if !seenN[c.Nemesis] {
			seenN[c.Nemesis] = true
			res.Spec.Nemeses = append(res.Spec.Nemeses, c.Nemesis)
		}
	}
	return res
}

func TestHeadline(t *testing.T) {
	clean := checksOpts{gets: 50000}
	tests := []struct {
		name string
		res  run.Result
		want string
	}{
		{"Direct Get on stale, off clean", resultOf(
			cellOf(true, "none", checksOpts{gets: 50000, stale: 2807, rejStale: 2808}, ""),
			cellOf(false, "none", clean, "")),
			"Direct Get on: 2,807 stale reads (5.6 % of reads), 2,808 updates rejected because of them; Direct Get off: none (all 6 checks passed)."},
		{"all valid", resultOf(cellOf(true, "none", clean, ""), cellOf(false, "none", clean, "")),
			"Direct Get on: none (all 6 checks passed); Direct Get off: none (all 6 checks passed)."},
		{"one stale read, singular", resultOf(cellOf(true, "none", checksOpts{gets: 50000, stale: 1, rejStale: 1}, "")),
			"Direct Get on: 1 stale read (0.002 % of reads), 1 update rejected because of them."},
		{"unknown only", resultOf(cellOf(false, "none", checksOpts{gets: 100, linUnknown: "time bound reached (60s)"}, "")),
			"Direct Get off: no anomaly found, but undecided: linearizability: time bound reached (60s)."},
		{"invalid and unknown", resultOf(cellOf(true, "none", checksOpts{gets: 1000, stale: 10, rejStale: 10, linUnknown: "time bound"}, "")),
			"Direct Get on: 10 stale reads (1.0 % of reads), 10 updates rejected because of them, and undecided: linearizability."},
		{"harness error", resultOf(cellOf(true, "none", clean, ""), cellOf(false, "none", clean, "start cluster: docker: no such host\nmore")),
			"Direct Get on: none (all 6 checks passed); Direct Get off: did not run to the end: start cluster: docker: no such host."},
		{"spurious rejection without stale reads", resultOf(cellOf(false, "none", checksOpts{gets: 100, rejSpu: 2}, "")),
			"Direct Get off: no stale reads, but 2 updates rejected (10164) although nothing else wrote the key."},
		{"lost writes and no recovery", resultOf(cellOf(false, "kill", checksOpts{gets: 100, lostWrites: 3, notRecovered: true}, "")),
			"Direct Get off: no stale reads, but 3 acknowledged writes lost, and the cluster did not recover after the faults."},
		{"nemeses vary", resultOf(cellOf(false, "none", clean, ""), cellOf(false, "kill", checksOpts{gets: 9, stale: 3, rejStale: 3}, "")),
			"Direct Get off without faults: none (all 6 checks passed); Direct Get off under kill: 3 stale reads (33 % of reads), 3 updates rejected because of them."},
		{"many cells name only the findings", resultOf(
			cellOf(false, "a", clean, ""), cellOf(false, "b", clean, ""), cellOf(false, "c", clean, ""),
			cellOf(false, "d", clean, ""), cellOf(false, "e", checksOpts{gets: 10, lostWrites: 1}, "")),
			"Direct Get off under e: no stale reads, but 1 acknowledged write lost; the other 4 cells: none."},
		{"many cells all valid", resultOf(
			cellOf(false, "a", clean, ""), cellOf(false, "b", clean, ""), cellOf(false, "c", clean, ""),
			cellOf(false, "d", clean, ""), cellOf(false, "e", clean, "")),
			"All 5 cells valid: no stale reads and no other anomaly (Direct Get off under a; Direct Get off under b; Direct Get off under c; Direct Get off under d; Direct Get off under e)."},
		{"interrupted before any cell", run.Result{Interrupted: true}, "The run was interrupted before any cell finished."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Headline(tt.res); got != tt.want {
				t.Errorf("Headline:\n got  %q\n want %q", got, tt.want)
			}
			if got := strings.Join(HeadlineParts(tt.res), " "); got != Headline(tt.res) {
				t.Errorf("HeadlineParts joined = %q, not the headline", got)
			}
		})
	}
}

func TestShortLabelsNameWhatVaries(t *testing.T) {
	a := cellOf(true, "none", checksOpts{}, "")
	b := cellOf(false, "none", checksOpts{}, "")
	b.ServerVersion = "v2.10.22"
	o := kvOf(b.Settings)
	o.Keys = 50
	b.Settings = mustJSON(o)
	got := ShortLabels([]run.CellResult{a, b})
	want := []string{"v2.15.3, Direct Get on, 10 keys", "v2.10.22, Direct Get off, 50 keys"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("ShortLabels = %q, want %q", got, want)
	}
}

func TestFormatting(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{fmtCount(0), "0"}, {fmtCount(999), "999"}, {fmtCount(1000), "1,000"}, {fmtCount(-1234567), "-1,234,567"},
		{fmtPct(2807, 50000), "5.6 %"}, {fmtPct(1, 50000), "0.002 %"}, {fmtPct(0, 10), "0 %"}, {fmtPct(1, 0), "0 %"}, {fmtPct(50, 100), "50 %"},
		{fmtMs(0.004), "4 µs"}, {fmtMs(0.5), "0.5 ms"}, {fmtMs(56.4), "56 ms"}, {fmtMs(2500), "2.50 s"},
		{fmtBytes(512 << 20), "512 MiB"}, {fmtBytes(1536 << 20), "1.5 GiB"}, {fmtBytes(100), "100 B"},
		{fmtBytes(1056415744), "0.98 GiB"}, {fmtBytes(1000 << 10), "0.98 MiB"}, {fmtBytes(999 << 20), "999 MiB"},
		{plural(1, "read", "reads"), "1 read"}, {plural(2807, "read", "reads"), "2,807 reads"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
