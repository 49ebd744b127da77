package nemesis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/ctxtime"
)

// Integration tests run every fault against a real 3-node cluster with an
// R3 stream that a background writer keeps appending to, and log what each
// fault took to inject, to heal, and for the cluster to recover.

const (
	itStream   = "CHAOS"
	itPreload  = 5000 // messages of itMsgSize before the first fault, so a wiped node has something to catch up
	itMsgSize  = 1024
	itHold     = 2 * time.Second
	itRecovery = 60 * time.Second
	// itResultRecovery bounds the wait when recovery is only logged
	// (recoveryIsAResult). Every recovery in these tests' tables took at
	// most 6.2 s, while a cluster that does not repair itself says so
	// for the whole wait (n3 "raft: snapshot corrupt" after
	// truncate=snapshot, "group node missing" after bitflip=snapshot):
	// 60 s there only delayed the log line, by 3 minutes of the nemesis
	// package's test time in a make test run.
	itResultRecovery = 30 * time.Second
)

type realCluster struct {
	c   cluster.Cluster
	js  jetstream.JetStream
	env *Env
	// recoveryIsAResult: the fault tests the server's own repair (a
	// corrupted file), so not recovering is a finding to log, not a
	// failure of the fault.
	recoveryIsAResult bool
	// knownBug, once set, is a server bug a window ran into that leaves the
	// cluster unusable: runAll runs no further fault and skips, naming it.
	knownBug string
}

// seqflipHit matches a flip of sequence bits 32-61 of a stream block's
// record (62 and 63 are flags). nats-server then fills a hole of at least
// 2^32 index entries before any check and never starts (repro/seqflip,
// every release from 2.10.5 to 2.15.3).
var seqflipHit = regexp.MustCompile(`\(record \d+ \(seq \d+\) sequence bit (3[2-9]|[45]\d|6[01])\)`)

// knownServerBug names the server bug that explains an unverified window,
// or "": only a bitflip of a stream block that hit a high sequence bit and
// whose node did not come back.
func knownServerBug(fault, detail string) string {
	if fault == "bitflip=block" && seqflipHit.MatchString(detail) && strings.Contains(detail, "not back within") {
		return "repro/seqflip: a flipped high sequence bit in a block keeps nats-server from starting"
	}
	return ""
}

// startReal starts a cluster on rt with the stream and a writer, and tears
// all of it down at the end of the test.
func startReal(t *testing.T, rt cluster.Runtime, cfg cluster.Config) *realCluster {
	t.Helper()
	ctx := context.Background()
	cfg.Dir = t.TempDir()
	t0 := time.Now()
	c, err := rt.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(context.Background()); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	t.Logf("%s cluster of %d ready in %s", rt.Name(), len(c.Nodes()), secs(time.Since(t0)))
	var urls []string
	for _, n := range c.Nodes() {
		urls = append(urls, n.ClientURL)
	}
	nc, err := nats.Connect(strings.Join(urls, ","), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	// A new R3 stream on a loaded machine can take longer than one
	// request's answer; creating the same config again is idempotent.
	for try := 1; ; try++ {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := js.CreateStream(sctx, jetstream.StreamConfig{Name: itStream, Subjects: []string{"chaos.>"}, Replicas: 3})
		cancel()
		if err == nil {
			break
		}
		if try == 4 || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("create stream %s (try %d): %v", itStream, try, err)
		}
	}
	payload := make([]byte, itMsgSize)
	for i := 0; i < itPreload; i++ {
		_, err := js.PublishAsync("chaos.pre", payload)
		for tries := 0; errors.Is(err, jetstream.ErrTooManyStalledMsgs) && tries < 50; tries++ {
			// A busy machine acks slowly: wait for the acks, then go on.
			select {
			case <-js.PublishAsyncComplete():
			case <-time.After(time.Second):
			}
			_, err = js.PublishAsync("chaos.pre", payload)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(30 * time.Second):
		t.Fatal("preload not acknowledged in 30s")
	}

	// A writer through every fault: one message every 20 ms, errors ignored
	// (a fault may make some fail; nemesis tests check faults, not writes).
	wctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; wctx.Err() == nil; i++ {
			pctx, cancel := context.WithTimeout(wctx, time.Second)
			js.Publish(pctx, "chaos.w", payload)
			cancel()
			ctxtime.Sleep(wctx, 20*time.Millisecond)
		}
	})
	t.Cleanup(func() { stop(); wg.Wait() })

	env := &Env{Cluster: c, JS: js, Stream: itStream, Logf: t.Logf}
	if r := WaitRecovered(ctx, env, itRecovery); !r.Recovered {
		t.Fatalf("fresh cluster: %s", r.Detail)
	}
	return &realCluster{c: c, js: js, env: env}
}

// timing is one fault's figures, logged as a table at the end.
type timing struct {
	fault, targets      string
	inject, heal, took  time.Duration
	verified, recovered bool
}

func (tm timing) String() string {
	return fmt.Sprintf("%-17s %-6s inject %6s  heal %6s  recovery %6s  verified=%v recovered=%v",
		tm.fault, tm.targets, tm.inject.Round(time.Millisecond), tm.heal.Round(time.Millisecond), tm.took.Round(time.Millisecond), tm.verified, tm.recovered)
}

// runOne runs a schedule of one window of fault (held itHold), the final
// restore, and WaitRecovered, and checks that all of it was verified.
func (rc *realCluster) runOne(t *testing.T, name string, seed uint64) timing {
	t.Helper()
	return rc.runObserved(t, name, seed, nil)
}

// runObserved is runOne that also calls observe with the fault in effect,
// right after it was injected, to look at its effect more closely.
func (rc *realCluster) runObserved(t *testing.T, name string, seed uint64, observe func(Active)) timing {
	t.Helper()
	faults, err := Parse(name)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := history.NewRecorder(filepath.Join(t.TempDir(), "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once the hold is over, so exactly one window runs.
	held := observed{Fault: faults[0], after: func(a Active) {
		if observe != nil && a != nil {
			observe(a)
		}
		time.AfterFunc(itHold, cancel)
	}}
	ws := Schedule{Faults: []Fault{held}, Interval: itHold, Seed: seed}.Run(ctx, rc.env, rec)
	bound := itRecovery
	if rc.recoveryIsAResult {
		bound = itResultRecovery
	}
	r := WaitRecovered(context.Background(), rc.env, bound)
	if len(ws) != 1 {
		t.Fatalf("%d windows: %+v", len(ws), ws)
	}
	w := ws[0]
	t.Logf("window: %s", w.Detail)
	t.Logf("recovery: %s", r.Detail)
	if !w.Verified {
		if bug := knownServerBug(name, w.Detail); bug != "" {
			rc.knownBug = bug
			t.Skipf("%s: %s", bug, w.Detail)
		}
		t.Errorf("%s not verified: %s", name, w.Detail)
	}
	if !r.Recovered && !rc.recoveryIsAResult {
		// Once in 5 clean-clone make test runs, after partition-leader on
		// v2.15.3, the deposed leader's stream stayed "not current: group
		// node unhealthy" for the whole 60 s although the heal was seen;
		// 0 of 12 partition-leader windows on one cluster reproduced it
		// since. A failure says what each node's raft state was, so that
		// the next one tells a harness bug from a server anomaly.
		rc.logRaftState(t)
		t.Fatalf("%s: %s", name, r.Detail)
	}
	ops := rec.Ops()
	if len(ops) != 1 || ops[0].Fault != name || *ops[0].Verified != w.Verified || len(ops[0].Targets) == 0 {
		t.Errorf("history %+v does not record the window", ops)
	}
	return timing{fault: name, targets: strings.Join(w.Targets, ","), inject: w.Inject, heal: w.Heal, took: r.Took, verified: w.Verified, recovered: r.Recovered}
}

// logRaftState logs each node's /healthz details and its raft view of the
// stream and the meta group (/jsz with raft=true).
func (rc *realCluster) logRaftState(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m := rc.env.monitor()
	for _, n := range rc.c.Nodes() {
		h, err := m.Healthz(ctx, n, cluster.HealthzOptions{Details: true})
		t.Logf("%s /healthz: %+v %v", n.Name, h, err)
		var jsz json.RawMessage
		err = m.Get(ctx, n, "/jsz?streams=true&raft=true&accounts=true", &jsz)
		t.Logf("%s /jsz: %s %v", n.Name, jsz, err)
	}
}

// runAll runs each fault in turn on one cluster and logs the figures.
func (rc *realCluster) runAll(t *testing.T, names []string) {
	var table []string
	for i, name := range names {
		if rc.knownBug != "" {
			break
		}
		t.Run(name, func(t *testing.T) {
			table = append(table, rc.runOne(t, name, uint64(i)).String())
		})
	}
	t.Logf("%s runtime, hold %s:\n%s", rc.c.Runtime(), itHold, strings.Join(table, "\n"))
	if rc.knownBug != "" {
		t.Skipf("the faults after it not run: %s", rc.knownBug)
	}
}

// observed calls after with what Inject returned.
type observed struct {
	Fault
	after func(Active)
}

func (o observed) Inject(ctx context.Context, env *Env) (Active, error) {
	a, err := o.Fault.Inject(ctx, env)
	o.after(a)
	return a, err
}

// TestKnownServerBug: only a block bitflip whose node did not come back
// and that hit a high sequence bit is put down to repro/seqflip.
func TestKnownServerBug(t *testing.T) {
	hit := "inject: n2 stopped after 0.1s; jetstream/$G/streams/S/msgs/1.blk: 4 bits flipped in 106300 bytes: offset 9 0x00->0x40 (record 1 (seq 1) sequence bit 46), offset 99 0x61->0x63 (record 1 (seq 1) message)"
	down := "; heal: NOT VERIFIED: n2 not back within 20.0s: connection refused"
	cases := []struct {
		name, fault, detail string
		known               bool
	}{
		{"seqflip", "bitflip=block", hit + down, true},
		{"came back", "bitflip=block", hit + "; heal: n2 back with full routes", false},
		{"a low sequence bit", "bitflip=block", strings.Replace(hit, "bit 46", "bit 20", 1) + down, false},
		{"a flag bit", "bitflip=block", strings.Replace(hit, "bit 46", "bit 63", 1) + down, false},
		{"bit 32", "bitflip=block", strings.Replace(hit, "bit 46", "bit 32", 1) + down, true},
		{"bit 61", "bitflip=block", strings.Replace(hit, "bit 46", "bit 61", 1) + down, true},
		{"a wal, not shown", "bitflip=wal", hit + down, false},
		{"the timestamp", "bitflip=block", strings.Replace(hit, "sequence bit 46", "timestamp bit 46", 1) + down, false},
	}
	for _, tc := range cases {
		if got := knownServerBug(tc.fault, tc.detail) != ""; got != tc.known {
			t.Errorf("%s: known %v, want %v", tc.name, got, tc.known)
		}
	}
}
