package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/local"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
	"github.com/jetstream-chaos/jetstream-chaos/nemesis"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// kvSpec is a kv-update spec with the given settings.
func kvSpec(t *testing.T, s record.Spec, kvs ...kvupdate.Options) record.Spec {
	t.Helper()
	s.Workload = kvupdate.Name
	var ss []workloads.Settings
	for _, o := range kvs {
		ss = append(ss, o)
	}
	if err := SetSettings(&s, ss); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCellsMatrix(t *testing.T) {
	kv := kvupdate.Options{}.WithDefaults()
	s := kvSpec(t, record.Spec{DirectGet: []bool{true, false}, ServerVersions: []string{"v2.10.7", "v2.15.3"}, Nemeses: []string{"none", "kill,pause"}}, kv)
	cells := s.Cells()
	if len(cells) != 8 {
		t.Fatalf("%d cells, want 8", len(cells))
	}
	seen := map[string]bool{}
	for _, c := range cells {
		if seen[c.Name] {
			t.Fatalf("duplicate cell name %q", c.Name)
		}
		seen[c.Name] = true
	}
	if cells[0].Name != "v2.10.7_none_direct-get-on" || cells[1].Name != "v2.10.7_none_direct-get-off" || cells[3].Name != "v2.10.7_kill+pause_direct-get-off" {
		t.Fatalf("cell order or names changed: %v %v %v", cells[0].Name, cells[1].Name, cells[3].Name)
	}
	if got := kvSpec(t, record.Spec{DirectGet: []bool{true, false}, ServerVersions: []string{"v2.15.3"}, Nemeses: []string{"none"}}, kv).Cells(); got[0].Name != "direct-get-on" {
		t.Fatalf("single-setting names carry only what varies: %q", got[0].Name)
	}
	got := kvSpec(t, record.Spec{DirectGet: []bool{false}, ServerVersions: []string{"v2.15.3"}, Nemeses: []string{"none"}},
		kvupdate.Options{Keys: 10, Clients: 10}, kvupdate.Options{Keys: 20, Clients: 10}).Cells()
	var second kvupdate.Options
	if len(got) == 2 {
		_ = json.Unmarshal(got[1].Settings, &second)
	}
	if len(got) != 2 || got[0].Name != "keys-10_direct-get-off" || got[1].Name != "keys-20_direct-get-off" || second.Keys != 20 {
		t.Fatalf("workload axis: %+v", got)
	}
}

func TestParseDirectGet(t *testing.T) {
	cases := map[string][]bool{"on": {true}, "off": {false}, "both": {true, false}, "off,on": {false, true}}
	for in, want := range cases {
		got, err := ParseDirectGet(in)
		if err != nil || len(got) != len(want) || got[0] != want[0] {
			t.Errorf("ParseDirectGet(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseDirectGet("sometimes"); err == nil {
		t.Error("bad value accepted")
	}
}

// TestIntegrationExecuteLocal runs the whole pipeline on real local processes: both
// cells, every file stored, and with Direct Get off a healthy cluster shows
// no stale read and no read-your-writes violation.
func TestIntegrationExecuteLocal(t *testing.T) {
	testenv.Require(t, testenv.Processes(serverbin.Path))
	store := t.TempDir()
	spec := record.Spec{
		Workload: "kv-update", Runtime: "local", Store: store, TimeLimit: 3 * time.Second,
		DirectGet: []bool{true, false}, ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{"none"},
		NemesisInterval: 5 * time.Second, Seed: 7, RecoveryTimeout: 30 * time.Second, CheckTimeout: 30 * time.Second,
		Command: "chaos run --seed=7",
	}
	spec = kvSpec(t, spec, kvupdate.Options{}.WithDefaults())
	if err := Validate(spec); err != nil {
		t.Fatal(err)
	}
	out, _ := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	defer out.Close()
	res, err := Execute(context.Background(), spec, local.New(), out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 2 {
		t.Fatalf("%d cells", len(res.Cells))
	}
	for _, f := range []string{"run.json", "results.json"} {
		if _, err := os.Stat(filepath.Join(store, "latest", f)); err != nil {
			t.Errorf("latest/%s: %v", f, err)
		}
	}
	for _, c := range res.Cells {
		if c.Error != "" {
			t.Fatalf("%s: %s", c.Name, c.Error)
		}
		for _, f := range []string{"history.jsonl", "stream.jsonl", "results.json", "config/n1.conf", "logs/n1.log"} {
			if _, err := os.Stat(filepath.Join(c.Dir, f)); err != nil {
				t.Errorf("%s: %v", c.Name, err)
			}
		}
		if _, err := os.Stat(filepath.Join(c.Dir, "data")); err == nil {
			t.Errorf("%s: node stores kept without --keep-data", c.Name)
		}
		h, err := history.Load(c.Dir)
		if err != nil || !h.StreamComplete || len(h.Ops) < 100 || c.Ops.Total != record.CountOps(h.Ops, 0).Total {
			t.Errorf("%s: stored history: %d ops (result says %d), stream complete %v, err %v", c.Name, len(h.Ops), c.Ops.Total, h.StreamComplete, err)
		}
		for _, ch := range c.Checks {
			if ch.Verdict == checker.Unknown {
				t.Errorf("%s: %s unknown: %s", c.Name, ch.Name, ch.Reason)
			}
			if !c.DirectGet && ch.Verdict != checker.Valid {
				t.Errorf("Direct Get off on a healthy cluster: %s is %s: %s", ch.Name, ch.Verdict, ch.Summary)
			}
		}
	}
}

// A cluster that does not come back after the final heal is a finding: the
// recovery check must fail the cell, and pass when it recovers.
func TestRecoveryCheck(t *testing.T) {
	unhealed := []string{"partition-one+member-replace n2,n3: heal: routes full after 0.3s + NOT VERIFIED: n3-r1 not a current replica"}
	cases := []struct {
		in       nemesis.Recovery
		unhealed []string
		want     checker.Verdict
	}{
		{nemesis.Recovery{Recovered: true, Detail: "recovered after 1.2s"}, nil, checker.Valid},
		{nemesis.Recovery{Recovered: true, Detail: "recovered after 1.2s"}, unhealed, checker.Valid},
		{nemesis.Recovery{Recovered: false, Detail: "did not recover within 60.0s: n2 /healthz: stream not current"}, nil, checker.Invalid},
		// A hunt's member-replace could not remove n3 while n2 was cut
		// off: the stream kept the peer n3, gone, and never recovered.
		{nemesis.Recovery{Recovered: false, Detail: "did not recover within 60.0s: stream KV_chaos (leader n1) replicas behind: n3 current=false offline=true"}, unhealed, checker.Unknown},
	}
	for _, c := range cases {
		got := recoveryCheck(c.in, c.unhealed)
		if c.want == checker.Unknown && !strings.Contains(got.Reason, "n3-r1 not a current replica") {
			t.Errorf("reason %q does not name the unhealed fault", got.Reason)
		}
		if got.Verdict != c.want || got.Summary != c.in.Detail || got.Name != "recovery" {
			t.Errorf("recoveryCheck(%+v) = %+v, want %s with the detail as summary", c.in, got, c.want)
		}
		if record.VerdictOf([]checker.Result{got}) != record.Verdict(c.want) {
			t.Errorf("the cell verdict does not follow the recovery check")
		}
	}
}

// TestIntegrationStopOnAnomaly: with Direct Get on, the online checks see
// a stale read and end the workload long before its time limit; the cell
// is still healed, recovered and judged, and the offline verdict agrees.
func TestIntegrationStopOnAnomaly(t *testing.T) {
	testenv.Require(t, testenv.Processes(serverbin.Path))
	spec := record.Spec{
		Workload: "kv-update", Runtime: "local", Store: t.TempDir(), TimeLimit: 60 * time.Second,
		DirectGet: []bool{true}, ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{"none"},
		NemesisInterval: 5 * time.Second, Seed: 7, CheckTimeout: 30 * time.Second, StopOnAnomaly: true,
		Command: "chaos run --direct-get on --stop-on-anomaly",
	}
	spec = kvSpec(t, spec, kvupdate.Options{}.WithDefaults())
	out, _ := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	defer out.Close()
	res, err := Execute(context.Background(), spec, local.New(), out)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Cells[0]
	if c.Error != "" || c.Online == nil {
		t.Fatalf("error %q, online %+v", c.Error, c.Online)
	}
	if !c.Online.Stopped || c.Online.First == nil || c.Phases["workload"] > 30 {
		t.Fatalf("online %+v, workload %.1fs: want it stopped at the first anomaly", c.Online, c.Phases["workload"])
	}
	var stale checker.Result
	for _, ch := range c.Checks {
		if ch.Name == "stale-read" {
			stale = ch
		}
	}
	// The offline check also sees the final reads, so it can only find more.
	if stale.Verdict != checker.Invalid || int64(stale.Counts["stale_reads"]) < c.Online.Counts["stale_reads"] {
		t.Errorf("offline stale-read %s %v, online %+v", stale.Verdict, stale.Counts, c.Online.Counts)
	}
	t.Logf("first anomaly %s after %s; workload %.1fs", c.Online.First.Kind, c.Online.FirstAfter, c.Phases["workload"])
}

// The recovery check keeps the name readers look it up by.
func TestRecoveryCheckName(t *testing.T) {
	if got := recoveryCheck(nemesis.Recovery{}, nil).Name; got != checker.NameRecovery {
		t.Errorf("recovery check named %q, want checker.NameRecovery %q", got, checker.NameRecovery)
	}
}
