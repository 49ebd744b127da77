package kvupdate

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

var ttlBase = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC).UnixNano()

func ttlAtS(s float64) int64 { return ttlBase + int64(s*float64(time.Second)) }

// ttlHistory builds TTL ops: creates (value, rev, invoke, complete in
// seconds, outcome), gets (value or "" for gone, invoke, complete) and
// markers (seq).
type ttlFixture struct{ ops []history.Op }

func (f *ttlFixture) add(typ history.OpType, outcome history.Outcome, data any) {
	b, _ := json.Marshal(data)
	f.ops = append(f.ops, history.Op{Type: typ, Client: 1000, Outcome: outcome, Data: b})
}

func (f *ttlFixture) create(v string, rev uint64, inv, comp float64, outcome history.Outcome) *ttlFixture {
	f.add(OpTTLCreate, outcome, TTLOp{Key: "t0", Value: v, Rev: rev, WallInvoke: ttlAtS(inv), WallComplete: ttlAtS(comp)})
	return f
}

func (f *ttlFixture) get(v string, inv, comp float64) *ttlFixture {
	f.add(OpTTLGet, history.OK, TTLOp{Key: "t0", Value: v, Found: v != "", WallInvoke: ttlAtS(inv), WallComplete: ttlAtS(comp)})
	return f
}

func (f *ttlFixture) marker(seq uint64) *ttlFixture {
	f.add(OpTTLSeen, history.OK, TTLSeen{Key: "t0", Seq: seq, Reason: "MaxAge"})
	return f
}

var settledStates = []replicas.Replica{{Node: "n1", State: &replicas.State{LastSeq: 9}}, {Node: "n2", State: &replicas.State{LastSeq: 9}},
	{Node: "n3", State: &replicas.State{LastSeq: 9}}}

// kv-ttl flags an expired value read and a live value reported gone,
// passes reads exactly at the slack's edges and zero-length ops, and
// with limit markers flags an expiry that left none.
func TestTTL(t *testing.T) {
	b := TTLBounds{Key: 5 * time.Second, Slack: 2 * time.Second}
	final := &TTLFinal{States: settledStates, Observed: true}
	// Value a acknowledged at 1.0 (invoked 0.9): it may be read until 8.0
	// (1+5+2) and must be there until 3.9 (0.9+5-2).
	base := func() *ttlFixture { return (&ttlFixture{}).create("a", 1, 0.9, 1, history.OK) }
	cases := []struct {
		name    string
		f       *ttlFixture
		bounds  TTLBounds
		verdict checker.Verdict
		kind    string
	}{
		{"no ops", &ttlFixture{}, b, checker.Valid, ""},
		{"read, then gone after its TTL", base().get("a", 2, 2.1).get("a", 6, 6.1).get("", 6.5, 6.6), b, checker.Valid, "gets"},
		{"read exactly at the upper edge (a tie)", base().get("a", 8, 8), b, checker.Valid, "gets"},
		{"gone exactly at the lower edge (a tie)", base().get("", 3.9, 3.9), b, checker.Valid, "gets"},
		{"expired value read", base().get("a", 8.001, 8.1), b, checker.Invalid, "expired_read"},
		{"live value reported gone", base().get("", 3.8, 3.899), b, checker.Invalid, "live_missing"},
		{"gone after an indeterminate create: no claim", (&ttlFixture{}).create("a", 0, 0.9, 3, history.Info).get("", 3.1, 3.2), b, checker.Valid, ""},
		{"a refused create leaves the key gone", base().get("", 7, 7.1).create("b", 0, 7.2, 7.3, history.Fail).get("", 7.4, 7.5), b, checker.Valid, "gets"},
		{"marker left", base().get("", 7, 7.1).marker(2).create("b", 3, 7.2, 7.3, history.OK), TTLBounds{Key: b.Key, Slack: b.Slack, Marker: time.Second}, checker.Valid, "expiries_seen"},
		{"no marker", base().get("", 7, 7.1).create("b", 3, 7.2, 7.3, history.OK), TTLBounds{Key: b.Key, Slack: b.Slack, Marker: time.Second}, checker.Invalid, "marker_missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := TTL(c.f.ops, final, c.bounds, 0)
			if r.Verdict != c.verdict || c.kind != "" && r.Counts[c.kind] == 0 {
				t.Fatalf("verdict %s (want %s), counts %v: %s %+v", r.Verdict, c.verdict, r.Counts, r.Summary, r.Anomalies)
			}
			if c.verdict == checker.Invalid && len(r.Anomalies) == 0 {
				t.Fatalf("invalid without an example: %+v", r)
			}
		})
	}
	t.Run("a replica still holding an expired value", func(t *testing.T) {
		kept := []replicas.Replica{settledStates[0], settledStates[1], {Node: "n3", State: &replicas.State{Messages: 1, FirstSeq: 9, LastSeq: 9}}}
		r := TTL(base().ops, &TTLFinal{States: kept, Observed: true}, b, 0)
		if r.Verdict != checker.Invalid || r.Counts["replica_kept_expired"] != 1 {
			t.Fatalf("%s %v", r.Verdict, r.Counts)
		}
	})
	t.Run("a server that did not answer", func(t *testing.T) {
		r := TTL(base().ops, &TTLFinal{States: []replicas.Replica{{Node: "n1", Error: "timeout"}}, Observed: true}, b, 0)
		if r.Verdict != checker.Unknown {
			t.Fatalf("%s %v", r.Verdict, r.Counts)
		}
	})
	t.Run("an expiry inside a fault window", func(t *testing.T) {
		f := base()
		f.ops[0].Invoke = 0 // the history's clock: wall = invoke + offset
		offset := f.ops[0].Invoke
		var d TTLOp
		_ = json.Unmarshal(f.ops[0].Data, &d)
		offset = d.WallInvoke - offset
		f.ops = append(f.ops, history.Op{Type: history.Fault, Client: history.NemesisClient, Fault: "kill", Outcome: history.OK,
			Invoke: ttlAtS(5.5) - offset, Complete: ttlAtS(6.5) - offset})
		r := TTL(f.ops, final, b, 0)
		if r.Verdict != checker.Valid || r.Counts["expiries_in_fault"] != 1 {
			t.Fatalf("%s %v", r.Verdict, r.Counts)
		}
	})
	t.Run("no finish", func(t *testing.T) {
		if r := TTL(base().ops, nil, b, 0); r.Verdict != checker.Unknown {
			t.Fatalf("%s %v", r.Verdict, r.Counts)
		}
	})
	t.Run("no marker seen where the observer missed a sequence", func(t *testing.T) {
		f := base().get("", 7, 7.1).create("b", 3, 7.2, 7.3, history.OK)
		r := TTL(f.ops, &TTLFinal{States: settledStates, Observed: true, Missing: []uint64{2}}, TTLBounds{Key: b.Key, Slack: b.Slack, Marker: time.Second}, 0)
		if r.Verdict != checker.Unknown || r.Counts["unobserved"] != 1 || r.Counts["marker_missing"] != 0 {
			t.Fatalf("%s %v", r.Verdict, r.Counts)
		}
		r = TTL(f.ops, &TTLFinal{States: settledStates, Observed: true, Missing: []uint64{3}}, TTLBounds{Key: b.Key, Slack: b.Slack, Marker: time.Second}, 0)
		if r.Verdict != checker.Invalid || r.Counts["marker_missing"] != 1 {
			t.Fatalf("a missed sequence outside the span excuses nothing: %s %v", r.Verdict, r.Counts)
		}
	})
	t.Run("markers unobserved", func(t *testing.T) {
		kept := []replicas.Replica{settledStates[0], {Node: "n2", Error: "timeout"}}
		r := TTL(base().get("", 7, 7.1).ops, &TTLFinal{States: kept, Detail: "stopped short"}, TTLBounds{Key: b.Key, Slack: b.Slack, Marker: time.Second}, 0)
		if r.Verdict != checker.Unknown || r.Counts["unobserved"] != 1 {
			t.Fatalf("%s %v", r.Verdict, r.Counts)
		}
	})
	t.Run("an observer short of the end, on an emptied bucket, saw all there was", func(t *testing.T) {
		f := base().get("", 7, 7.1).marker(2).create("b", 3, 7.2, 7.3, history.OK)
		r := TTL(f.ops, &TTLFinal{States: settledStates, Detail: "stopped short", Missing: []uint64{4}}, TTLBounds{Key: b.Key, Slack: b.Slack, Marker: time.Second}, 0)
		if r.Verdict != checker.Valid || r.Counts["expiries_seen"] != 1 {
			t.Fatalf("%s %v", r.Verdict, r.Counts)
		}
	})
}

// Each bad TTL value is the one-line error naming its flag.
func TestValidateTTL(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{KeyTTL: 5 * time.Second, TTLKeys: 3}, ""},
		{Options{KeyTTL: 5 * time.Second, LimitMarkerTTL: time.Second, TTLKeys: 3}, ""},
		{Options{KeyTTL: 500 * time.Millisecond, TTLKeys: 3}, "--key-ttl 500ms is below the server's 1s minimum"},
		{Options{KeyTTL: 1500 * time.Millisecond, TTLKeys: 3}, "--key-ttl 1.5s is not whole seconds"},
		{Options{KeyTTL: 5 * time.Second, LimitMarkerTTL: 100 * time.Millisecond, TTLKeys: 3}, "--limit-marker-ttl 100ms is below the server's 1s minimum"},
		{Options{LimitMarkerTTL: time.Second}, "--limit-marker-ttl needs --key-ttl"},
		{Options{KeyTTL: 5 * time.Second}, "--ttl-keys must be 1..100, got 0"},
		{Options{KeyTTL: 5 * time.Second, TTLKeys: 1, TTLSlack: -time.Second}, "--ttl-slack must not be negative"},
	} {
		err := c.o.validateTTL()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}
