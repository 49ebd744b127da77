package reports

import (
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
)

// Without a view the headline is said from the checks: each invalid check
// with its summary, the undecided ones, a harness error, or "none".
func TestGenericHeadline(t *testing.T) {
	cell, res := reportstest.CellOf, reportstest.ResultOf
	clean := reportstest.ChecksOpts{Gets: 50000}
	generic := func(r record.Result) record.Result { r.Spec.Workload = "no-view"; return r }
	tests := []struct {
		name string
		res  record.Result
		exps []record.Expectation
		want string
	}{
		{"stale reads on, off clean", res(cell(true, "none", reportstest.ChecksOpts{Gets: 50000, Stale: 2807, RejStale: 2808}, ""), cell(false, "none", clean, "")), nil,
			"Direct Get on: session: 2807 read-your-writes violations, stale-read: 2807 of 50000 gets were stale, " +
				"wrong-last-seq: 2808 wrong-last-sequence rejections: 2808 stale_read, 0 concurrent_write, 0 spurious, and " +
				"linearizability: 10 of 10 keys not linearizable; Direct Get off: none (all 6 checks passed)."},
		{"expected anomalies say so", res(cell(true, "none", reportstest.ChecksOpts{Gets: 100, Stale: 1, RejStale: 1}, "")),
			[]record.Expectation{{Cells: "direct-get-on", Anomaly: "stale-reads"}},
			"Direct Get on: session: 1 read-your-writes violations, stale-read: 1 of 100 gets were stale, " +
				"wrong-last-seq: 1 wrong-last-sequence rejections: 1 stale_read, 0 concurrent_write, 0 spurious, and " +
				"linearizability: 1 of 10 keys not linearizable (expected)."},
		{"unknown only", res(cell(false, "none", reportstest.ChecksOpts{Gets: 100, LinUnknown: "time bound reached (60s)"}, "")), nil,
			"Direct Get off: no anomaly found, but undecided: linearizability: time bound reached (60s)."},
		{"invalid and unknown", res(cell(true, "none", reportstest.ChecksOpts{Gets: 1000, Stale: 10, RejStale: 10, LinUnknown: "time bound"}, "")), nil,
			"Direct Get on: session: 10 read-your-writes violations, stale-read: 10 of 1000 gets were stale, " +
				"wrong-last-seq: 10 wrong-last-sequence rejections: 10 stale_read, 0 concurrent_write, 0 spurious, and undecided: linearizability."},
		{"harness error", res(cell(true, "none", clean, ""), cell(false, "none", clean, "start cluster: docker: no such host\nmore")), nil,
			"Direct Get on: none (all 6 checks passed); Direct Get off: did not run to the end: start cluster: docker: no such host."},
		{"lost writes and no recovery", res(cell(false, "kill", reportstest.ChecksOpts{Gets: 100, LostWrites: 3, NotRecovered: true}, "")), nil,
			"Direct Get off: stream-integrity: 3 acknowledged writes missing from the stream, and recovery: did not recover within 1m0s: n2 has no route to n3."},
		{"many cells name only the findings", res(
			cell(false, "a", clean, ""), cell(false, "b", clean, ""), cell(false, "c", clean, ""),
			cell(false, "d", clean, ""), cell(false, "e", reportstest.ChecksOpts{Gets: 10, LostWrites: 1}, "")), nil,
			"Direct Get off under e: stream-integrity: 1 acknowledged writes missing from the stream; the other 4 cells: none."},
		{"many cells all valid", res(
			cell(false, "a", clean, ""), cell(false, "b", clean, ""), cell(false, "c", clean, ""),
			cell(false, "d", clean, ""), cell(false, "e", clean, "")), nil,
			"All 5 cells valid: no anomaly (Direct Get off under a; Direct Get off under b; Direct Get off under c; Direct Get off under d; Direct Get off under e)."},
		{"many cells under one label", res(
			cell(false, "a", clean, ""), cell(false, "a", clean, ""), cell(false, "a", clean, ""),
			cell(false, "a", clean, ""), cell(false, "b", clean, "")), nil,
			"All 5 cells valid: no anomaly (Direct Get off under a: 4 cells; Direct Get off under b)."},
		{"not checked", res(record.CellResult{Cell: record.Cell{Name: "direct-get-on", DirectGet: true}, Verdict: record.Valid}), nil,
			"Direct Get on: not checked."},
		{"interrupted before any cell", record.Result{Interrupted: true}, nil, "The run was interrupted before any cell finished."},
		{"no cell", record.Result{}, nil, "No cell ran."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := generic(tt.res)
			if got := Headline(r, tt.exps...); got != tt.want {
				t.Errorf("Headline:\n got  %q\n want %q", got, tt.want)
			}
			if got := strings.Join(HeadlineParts(r, tt.exps...), " "); got != Headline(r, tt.exps...) {
				t.Errorf("HeadlineParts joined = %q, not the headline", got)
			}
		})
	}
}

func TestShortLabelsNameWhatVaries(t *testing.T) {
	a := reportstest.CellOf(true, "none", reportstest.ChecksOpts{}, "")
	b := reportstest.CellOf(false, "kill", reportstest.ChecksOpts{}, "")
	b.ServerVersion = "v2.10.22"
	tests := []struct {
		name string
		tags []string
		want []string
	}{
		{"no tags", nil, []string{"v2.15.3, Direct Get on without faults", "v2.10.22, Direct Get off under kill"}},
		{"a workload tag after Direct Get", []string{"10 keys", "50 keys"},
			[]string{"v2.15.3, Direct Get on, 10 keys without faults", "v2.10.22, Direct Get off, 50 keys under kill"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShortLabels([]record.CellResult{a, b}, tt.tags); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("ShortLabels = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFormatting(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{FormatCount(0), "0"}, {FormatCount(999), "999"}, {FormatCount(1000), "1,000"}, {FormatCount(-1234567), "-1,234,567"},
		{FormatPercent(2807, 50000), "5.6 %"}, {FormatPercent(1, 50000), "0.002 %"}, {FormatPercent(0, 10), "0 %"}, {FormatPercent(1, 0), "0 %"}, {FormatPercent(50, 100), "50 %"},
		{FormatMs(0.004), "4 µs"}, {FormatMs(0.5), "0.5 ms"}, {FormatMs(56.4), "56 ms"}, {FormatMs(2500), "2.50 s"},
		{FormatBytes(512 << 20), "512 MiB"}, {FormatBytes(1536 << 20), "1.5 GiB"}, {FormatBytes(100), "100 B"},
		{FormatBytes(1056415744), "0.98 GiB"}, {FormatBytes(1000 << 10), "0.98 MiB"}, {FormatBytes(999 << 20), "999 MiB"},
		{Plural(1, "read", "reads"), "1 read"}, {Plural(2807, "read", "reads"), "2,807 reads"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
