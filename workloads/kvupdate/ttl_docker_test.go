package kvupdate

import (
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
	"github.com/jetstream-chaos/jetstream-chaos/internal/celltest"
	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// TestIntegrationDockerKeyTTL: a kv-update cell with TTL keys and limit
// markers on a real 3-node cluster, no faults, through the pipeline as
// `chaos run --key-ttl 2s --limit-marker-ttl 1s` runs it: kv-ttl judges
// values that lived and expired, every expiry's marker seen, every
// replica empty once the TTLs passed, and `chaos check` agrees. A healthy
// cluster keeps the TTL promise (10 of 10 runs in the README), so
// anything but valid fails here.
func TestIntegrationDockerKeyTTL(t *testing.T) {
	rt := celltest.Docker(t)
	spec := record.Spec{Workload: Name, Runtime: rt.Name(), Store: t.TempDir(), TimeLimit: 10 * time.Second,
		DirectGet: []bool{false}, ServerVersions: []string{serverbin.DefaultVersion()}, Nemeses: []string{"none"},
		NemesisInterval: 5 * time.Second, Seed: 9, RecoveryTimeout: time.Minute, CheckTimeout: time.Minute,
		Command: "chaos run --key-ttl 2s --limit-marker-ttl 1s --direct-get off --time-limit 10s --seed 9"}
	o := Options{KeyTTL: 2 * time.Second, LimitMarkerTTL: time.Second, TTLKeys: 3, TTLSlack: DefaultTTLSlack}.WithDefaults()
	cell, printed := celltest.Cell(t, rt, spec, o.withBucket())
	r, ok := celltest.Checks(cell)[CheckTTL]
	if !ok {
		t.Fatalf("no %s: %v", CheckTTL, cell.Checks)
	}
	if r.Verdict != checker.Valid {
		t.Fatalf("%s %s: %s %s\n%s", CheckTTL, r.Verdict, r.Summary, r.Reason, printed)
	}
	if c := r.Counts; c["values"] < 6 || c["expiries_seen"] < 3 || c["gets"] < 30 {
		t.Errorf("%s counts %v: too few values, expiries or gets judged", CheckTTL, c)
	}
	f, ok, err := loadTTL(cell.Dir)
	if err != nil || !ok || !f.Observed || len(f.States) != 3 {
		t.Errorf("%s: %+v, %v, %v", TTLFile, f, ok, err)
	}
	celltest.Recheck(t, cell, Name)
}
