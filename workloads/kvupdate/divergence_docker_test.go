package kvupdate

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/cluster/docker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
)

// TestIntegrationDockerDivergenceFindsAnEditedReplica changes a follower's copy
// behind the server's back: the follower is stopped, one live value in its
// newest message block is rewritten with a valid checksum (same length, so
// /jsz sees nothing), and it is started again with the leader elsewhere.
// Reading every replica must find exactly that sequence on that node; the
// same read before the edit finds nothing.
func TestIntegrationDockerDivergenceFindsAnEditedReplica(t *testing.T) {
	testenv.Require(t, testenv.Docker(docker.Available))
	ctx := context.Background()
	dir := t.TempDir()
	cfg := cluster.Config{Dir: dir, RunID: "divergence-test"}.WithDefaults()
	c, err := docker.New().Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	w, err := Setup(ctx, c.Nodes(), Options{Keys: 20, Clients: 4, Replicas: 3, History: 1}.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec, err := history.NewRecorder(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	runCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	err = w.Run(runCtx, rec)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	w.DrainObservers(ctx, 0, time.Millisecond)
	waitCurrent(t, w)
	if r := replicas.CheckDivergence(w.ReadReplicas(ctx), checker.Options{}); r.Verdict != checker.Valid {
		t.Fatalf("before the edit: %s: %s %s", r.Verdict, r.Summary, r.Reason)
	}
	follower := -1
	leader := streamLeader(t, w)
	for i, n := range c.Nodes() {
		if n.Name != leader {
			follower = i
			break
		}
	}
	name := c.Nodes()[follower].Name
	if err := c.Stop(ctx, follower); err != nil {
		t.Fatal(err)
	}
	seq, value, err := editNewestValue(filepath.Join(dir, "data", name), w.StreamName())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stopped follower %s (leader %s), rewrote seq %d to %q", name, leader, seq, value)
	if err := c.Start(ctx, follower); err != nil {
		t.Fatal(err)
	}
	waitCurrent(t, w)
	start := time.Now()
	reps := w.ReadReplicas(ctx)
	t.Logf("read %d replicas in %s", len(reps), time.Since(start))
	r := replicas.CheckDivergence(reps, checker.Options{})
	t.Logf("%s: %s", r.Verdict, r.Summary)
	if r.Verdict != checker.Invalid || r.Counts[replicas.CountDifferentMsgs] != 1 || r.Counts[replicas.CountStateMismatch] != 0 {
		t.Fatalf("after the edit: %s: %s %s (counts %v)", r.Verdict, r.Summary, r.Reason, r.Counts)
	}
	if want := fmt.Sprintf("%s from seq %d", name, seq); !contains(r.Summary, want) {
		t.Fatalf("summary %q does not name %q", r.Summary, want)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func streamLeader(t *testing.T, w *Workload) string {
	t.Helper()
	info, err := w.js.Stream(context.Background(), w.StreamName())
	if err != nil {
		t.Fatal(err)
	}
	ci := info.CachedInfo()
	if ci.Cluster == nil || ci.Cluster.Leader == "" {
		t.Fatal("stream has no leader")
	}
	return ci.Cluster.Leader
}

// waitCurrent waits until the stream has a leader and every replica is
// current with no lag.
func waitCurrent(t *testing.T, w *Workload) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		s, err := w.js.Stream(context.Background(), w.StreamName())
		if err == nil {
			ci := s.CachedInfo()
			ok, why := allCurrent(ci)
			if ok {
				return
			}
			last = why
		} else {
			last = err.Error()
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("replicas not current within 60s: %s", last)
}

func allCurrent(ci *jetstream.StreamInfo) (bool, string) {
	if ci.Cluster == nil || ci.Cluster.Leader == "" {
		return false, "no leader"
	}
	if len(ci.Cluster.Replicas) != 2 {
		return false, fmt.Sprintf("%d replicas listed", len(ci.Cluster.Replicas))
	}
	for _, r := range ci.Cluster.Replicas {
		if !r.Current || r.Offline || r.Lag > 0 {
			return false, fmt.Sprintf("%s current=%v offline=%v lag=%d", r.Name, r.Current, r.Offline, r.Lag)
		}
	}
	return true, ""
}
