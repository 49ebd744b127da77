package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// fakeNode serves the monitoring endpoints the watcher reads.
type fakeNode struct {
	mu     sync.Mutex
	name   string
	leader string // of the stream, as this node sees it
	raftz  bool   // serves /raftz
	wal    uint64 // the first index of the stream group's log, from /raftz
	start  time.Time
}

func (f *fakeNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.URL.Path == "/varz":
		json.NewEncoder(w).Encode(map[string]any{"server_name": f.name, "start": f.start})
	case r.URL.Path == "/jsz" && r.URL.Query().Get("streams") == "":
		json.NewEncoder(w).Encode(map[string]any{"meta_cluster": map[string]any{"leader": "n1"}})
	case r.URL.Path == "/jsz":
		fmt.Fprintf(w, `{"account_details":[{"name":"$G","id":"$G","stream_detail":[{"name":"S","stream_raft_group":"S-G","cluster":{"leader":%q,"replicas":[]}}]}]}`, f.leader)
	case r.URL.Path == "/raftz" && f.raftz && r.URL.Query().Get("acc") != "$G":
		fmt.Fprint(w, `{}`) // without acc, the system account's groups alone (nats-server monitor.go, Raftz)
	case r.URL.Path == "/raftz" && f.raftz:
		fmt.Fprintf(w, `{"$G":{"S-G":{"term":1,"wal":{"first_seq":%d}}}}`, f.wal)
	default:
		http.NotFound(w, r)
	}
}

// fakeCluster has the nodes' URLs, and logs when lines is set.
type fakeCluster struct {
	cluster.Cluster
	nodes []cluster.Node
}

func (c fakeCluster) Nodes() []cluster.Node { return c.nodes }

type followingCluster struct {
	fakeCluster
	lines chan string // node 0's log
}

func (c followingCluster) FollowLog(ctx context.Context, node int) (io.ReadCloser, error) {
	if node != 0 {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	r, w := io.Pipe()
	go func() {
		defer w.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case l := <-c.lines:
				fmt.Fprintln(w, l)
			}
		}
	}()
	return r, nil
}

func startFakes(t *testing.T, raftz bool) ([]*fakeNode, fakeCluster) {
	var fakes []*fakeNode
	var nodes []cluster.Node
	for i := 1; i <= 3; i++ {
		f := &fakeNode{name: fmt.Sprintf("n%d", i), leader: "n1", raftz: raftz, wal: 1, start: time.Unix(100, 0)}
		srv := httptest.NewServer(f)
		t.Cleanup(srv.Close)
		fakes = append(fakes, f)
		nodes = append(nodes, cluster.Node{Name: f.name, MonitorURL: srv.URL})
	}
	return fakes, fakeCluster{nodes: nodes}
}

func isKind(k Kind) func(Event) bool { return func(e Event) bool { return e.Kind == k } }

// TestWatcherPolls: leader changes and restarts are seen by polling alone,
// in order, and a server without /raftz is said to be one.
func TestWatcherPolls(t *testing.T) {
	fakes, c := startFakes(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w := Start(ctx, Options{Cluster: c, Stream: "S", Every: 10 * time.Millisecond})
	if err := w.Ready(ctx); err != nil || w.Now().Leader != "n1" || len(w.Events()) != 0 {
		t.Fatalf("first poll: %v, state %+v, events %+v: want n1 leading, and no event (no change yet)", err, w.Now(), w.Events())
	}
	mark := w.Mark()
	for _, f := range fakes {
		f.mu.Lock()
		f.leader = "n2"
		f.mu.Unlock()
	}
	if e, _, err := w.Next(ctx, mark, isKind(LeaderChange)); err != nil || e.Node != "n2" || e.From != "n1" || e.Source != "poll" {
		t.Fatalf("second leader: %+v %v", e, err)
	}
	fakes[2].mu.Lock()
	fakes[2].start = time.Unix(200, 0)
	fakes[2].mu.Unlock()
	if e, _, err := w.Next(ctx, 0, isKind(Restart)); err != nil || e.Node != "n3" {
		t.Fatalf("restart: %+v %v", e, err)
	}
	if st := w.Now(); st.Leader != "n2" || st.OldLeader != "n1" || st.MetaLeader != "n1" {
		t.Fatalf("state %+v", st)
	}
	if n := w.Notes(); !strings.Contains(n["raftz"], "no /raftz") || !strings.Contains(n["logs"], "cannot follow") {
		t.Fatalf("notes %v", n)
	}
	cancel()
	w.Wait()
}

// TestWatcherSnapshot: a snapshot is seen in the stream group's /raftz,
// which the server serves only to a request that names the group's account.
func TestWatcherSnapshot(t *testing.T) {
	fakes, c := startFakes(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w := Start(ctx, Options{Cluster: c, Stream: "S", Every: 10 * time.Millisecond})
	if err := w.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	mark := w.Mark()
	fakes[1].mu.Lock()
	fakes[1].wal = 500 // n2 compacted its log after a snapshot
	fakes[1].mu.Unlock()
	if e, _, err := w.Next(ctx, mark, isKind(Snapshot)); err != nil || e.Node != "n2" {
		t.Fatalf("snapshot: %+v %v", e, err)
	}
	if n := w.Notes(); n["raftz"] != "" {
		t.Errorf("notes %v", n)
	}
	cancel()
	w.Wait()
}

// TestWatcherLogs: a new stream leader's log line is an event at the line's
// own time, before any poll could see it; a line matching a pattern is a
// Log event; lines from before the start and other streams' leaders are
// not events.
func TestWatcherLogs(t *testing.T) {
	fakes, fc := startFakes(t, true)
	for _, f := range fakes {
		f.leader = "n2" // as polled: n1's log will tell of its own election
	}
	c := followingCluster{fakeCluster: fc, lines: make(chan string, 10)}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	t0 := time.Now()
	w := Start(ctx, Options{Cluster: c, Stream: "S", Every: time.Hour, // one poll: the log must do the rest
		Patterns: []*regexp.Regexp{regexp.MustCompile(`Catchup for stream`)},
		Since:    func(t time.Time) time.Duration { return t.Sub(t0) }})
	if err := w.Ready(ctx); err != nil { // the one poll: n2 leads
		t.Fatal(err)
	}
	mark := w.Mark()
	stamp := func(t time.Time) string { return t.UTC().Format("2006/01/02 15:04:05.000000") }
	lineAt := time.Now()
	time.Sleep(200 * time.Millisecond)                                                                            // the lines arrive later than written: At must be their own time
	c.lines <- "[1] " + stamp(t0.Add(-5*time.Second)) + " [INF] JetStream cluster new stream leader for '$G > S'" // before the start
	c.lines <- "[1] " + stamp(lineAt) + " [INF] JetStream cluster new stream leader for '$G > OTHER'"
	c.lines <- "[1] " + stamp(lineAt) + " [WRN] Catchup for stream '$G > S' stalled"
	c.lines <- "[1] " + stamp(lineAt) + " [INF] JetStream cluster new stream leader for '$G > S'"
	e, mark, err := w.Next(ctx, mark, func(e Event) bool { return e.Kind == LeaderChange || e.Kind == Log })
	if err != nil || e.Kind != Log || !strings.Contains(e.Line, "stalled") || e.Node != "n1" || e.Pattern != "Catchup for stream" {
		t.Fatalf("log event: %+v %v", e, err)
	}
	e, _, err = w.Next(ctx, mark, isKind(LeaderChange))
	if err != nil || e.Node != "n1" || e.From != "n2" || e.Source != "log" {
		t.Fatalf("leader from the log: %+v %v", e, err)
	}
	if want := lineAt.Sub(t0); e.At != want.Truncate(time.Microsecond) && (e.At-want).Abs() > time.Microsecond {
		t.Errorf("at %s, want the line's own time %s", e.At, want)
	}
	if got := len(w.Events()); got != 2 { // the pattern's line, n1's election (the first poll's leaders are no change)
		t.Fatalf("%d events: %+v", got, w.Events())
	}
	if st := w.Now(); st.Leader != "n1" || st.OldLeader != "n2" {
		t.Fatalf("state %+v", st)
	}
}

// TestAnnouncedDueTimes: a due time the workload announced comes as one
// Due event DueLead ahead of it, however many promises share the instant;
// a time already past, or announced after the watcher stopped, comes never.
func TestAnnouncedDueTimes(t *testing.T) {
	_, c := startFakes(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	t0 := time.Now()
	since := func(t time.Time) time.Duration { return t.Sub(t0) }
	w := Start(ctx, Options{Cluster: c, Stream: "S", Every: 10 * time.Millisecond, Since: since, DueLead: 100 * time.Millisecond})
	if err := w.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	due := time.Now().Add(300 * time.Millisecond)
	w.Announce(due, "a")
	w.Announce(due, "b")
	w.Announce(time.Now().Add(-time.Millisecond), "past")
	e, _, err := w.Next(ctx, 0, isKind(Due))
	switch {
	case err != nil || e.Line != "a" || e.Source != "workload":
		t.Fatalf("event %+v %v: want a's due time", e, err)
	case e.Due != since(due).Truncate(time.Millisecond):
		t.Fatalf("due %s, want %s", e.Due, since(due))
	case e.At > e.Due || e.Due-e.At > 200*time.Millisecond:
		t.Fatalf("event at %s for a due time %s: want it about 100ms ahead", e.At, e.Due)
	}
	time.Sleep(400 * time.Millisecond)
	cancel()
	w.Wait()
	w.Announce(time.Now().Add(10*time.Millisecond), "after the end")
	time.Sleep(50 * time.Millisecond)
	n := 0
	for _, e := range w.Events() {
		if e.Kind == Due {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d due events, want 1: one instant is one event, past and late ones none", n)
	}
}
