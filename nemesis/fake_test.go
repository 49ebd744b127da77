package nemesis

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// fake is a cluster.Cluster without processes: each node is an httptest
// server that answers /varz, /healthz, /routez and /jsz from the fake's
// state. A killed node's server is closed (its port refuses), a paused
// node's handlers hang, a partition hides routes across groups.
type fake struct {
	mu     sync.Mutex
	nodes  []*fakeNode
	groups [][]int // nil: no partition
	caps   map[cluster.Capability]error
	leader int // stream leader, when running

	// Broken controls: noop ones return nil and do nothing; failing ones
	// do nothing and return an error naming the control and node, as the
	// runtimes do ("resume n1: <the message>").
	noop map[string]bool
	fail map[string]string
	ops  []string // controls called, in order

	// Membership, by server name: the meta group and the stream's peers.
	metaPeers, streamPeers []string
	dir                    string // holds each node's store directory
	// unhealthy: by server name, the error /healthz answers 503 with.
	unhealthy map[string]string
	// fastCatchUp: a wiped node's first /jsz already holds everything, as
	// a small stream's catch-up can beat the first reading.
	fastCatchUp bool
}

type fakeNode struct {
	name    string
	url     string
	srv     *httptest.Server
	running bool
	paused  chan struct{} // non-nil while paused; closed on resume
	msgs    uint64        // stream messages held
	wiped   bool          // the store was deleted: the next /jsz shows it empty
	// storeGone: a wipe deleted the store; StoreDir shows no file since.
	storeGone bool
	ended     time.Time // its process last ended
	net       fakeNet
}

const (
	fakeStream = "S"
	fakeGroup  = "S-R3F-fake"
)

func newFake(n int) *fake {
	f := &fake{caps: map[cluster.Capability]error{}, noop: map[string]bool{}, fail: map[string]string{}, unhealthy: map[string]string{}}
	for i := range n {
		nd := &fakeNode{name: cluster.NodeName(i), msgs: 1000}
		f.nodes = append(f.nodes, nd)
		f.metaPeers = append(f.metaPeers, nd.name)
		f.streamPeers = append(f.streamPeers, nd.name)
		f.serve(i)
	}
	return f
}

func (f *fake) serve(i int) {
	nd := f.nodes[i]
	nd.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		gate := nd.paused
		f.mu.Unlock()
		if gate != nil {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		var v any
		switch r.URL.Path {
		case "/varz":
			v = map[string]any{"server_name": nd.name}
		case "/healthz":
			v = map[string]any{"status": "ok"}
			if e, ok := f.unhealthy[nd.name]; ok {
				w.WriteHeader(http.StatusServiceUnavailable)
				v = map[string]any{"status": "unavailable", "error": e}
			}
		case "/routez":
			var routes []map[string]any
			for j, o := range f.nodes {
				if j != i && o.running && f.connected(i, j) {
					routes = append(routes, map[string]any{"remote_name": o.name, "rtt": "1ms"})
				}
			}
			v = map[string]any{"server_name": nd.name, "routes": routes}
		case "/jsz":
			v = f.jsz(i, r.URL.Query().Get("streams") == "true")
		default:
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(v)
	}))
	nd.url = nd.srv.URL
	nd.running = true
}

func (f *fake) connected(i, j int) bool {
	if f.groups == nil {
		return true
	}
	for _, g := range f.groups {
		if slices.Contains(g, i) && slices.Contains(g, j) {
			return true
		}
	}
	return false
}

func (f *fake) leaderName() string {
	if f.nodes[f.leader].running {
		return f.nodes[f.leader].name
	}
	for _, n := range f.nodes {
		if n.running {
			return n.name
		}
	}
	return ""
}

func (f *fake) jsz(i int, streams bool) any {
	nd := f.nodes[i]
	leader := f.leaderName()
	var meta []map[string]any
	for _, p := range f.metaPeers {
		if p != leader {
			meta = append(meta, map[string]any{"name": p, "current": f.runningName(p)})
		}
	}
	out := map[string]any{"server_name": nd.name, "meta_cluster": map[string]any{"leader": leader, "replicas": meta}}
	if !streams {
		return out
	}
	msgs := nd.msgs
	if nd.wiped && !f.fastCatchUp { // shows empty once, then "caught up"
		msgs, nd.wiped = 0, false
	}
	var reps []map[string]any
	for _, p := range f.streamPeers {
		if p != leader {
			reps = append(reps, map[string]any{"name": p, "current": f.runningName(p)})
		}
	}
	out["account_details"] = []any{map[string]any{"stream_detail": []any{map[string]any{
		"name":              fakeStream,
		"stream_raft_group": fakeGroup,
		"cluster":           map[string]any{"leader": leader, "replicas": reps},
		"config":            map[string]any{"num_replicas": len(f.nodes)},
		"state":             map[string]any{"messages": msgs},
	}}}}
	return out
}

// runningName says whether a node of that name runs.
func (f *fake) runningName(name string) bool {
	for _, n := range f.nodes {
		if n.name == name {
			return n.running
		}
	}
	return false
}

// do records a control call and says whether to carry it out, or the
// error it fails with.
func (f *fake) do(op string, i int) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops = append(f.ops, fmt.Sprintf("%s %d", op, i))
	if msg, ok := f.fail[op]; ok {
		return false, fmt.Errorf("%s %s: %s", op, f.nodes[i].name, msg)
	}
	return !f.noop[op], nil
}

func (f *fake) Runtime() string        { return "fake" }
func (f *fake) Config() cluster.Config { return cluster.Config{Nodes: len(f.nodes)} }
func (f *fake) Nodes() []cluster.Node {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []cluster.Node
	for _, n := range f.nodes {
		out = append(out, cluster.Node{Name: n.name, MonitorURL: n.url})
	}
	return out
}

func (f *fake) down(i int) {
	nd := f.nodes[i]
	f.mu.Lock()
	if nd.paused != nil {
		close(nd.paused)
		nd.paused = nil
	}
	running := nd.running
	nd.running = false
	if running {
		nd.ended = time.Now()
	}
	f.mu.Unlock()
	if running {
		nd.srv.Close()
	}
}

func (f *fake) Kill(_ context.Context, i int) error {
	ok, err := f.do("kill", i)
	if ok {
		f.down(i)
	}
	return err
}

func (f *fake) Stop(_ context.Context, i int) error {
	ok, err := f.do("stop", i)
	if ok {
		f.down(i)
	}
	return err
}

func (f *fake) Start(_ context.Context, i int) error {
	if ok, err := f.do("start", i); !ok {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nodes[i].running {
		return fmt.Errorf("%s already running", f.nodes[i].name)
	}
	f.serve(i)
	return nil
}

func (f *fake) Pause(_ context.Context, i int) error {
	ok, err := f.do("pause", i)
	if ok {
		f.mu.Lock()
		f.nodes[i].paused = make(chan struct{})
		f.mu.Unlock()
	}
	return err
}

func (f *fake) Resume(_ context.Context, i int) error {
	ok, err := f.do("resume", i)
	if ok {
		f.mu.Lock()
		if p := f.nodes[i].paused; p != nil {
			close(p)
			f.nodes[i].paused = nil
		}
		f.mu.Unlock()
	}
	return err
}

func (f *fake) Wipe(_ context.Context, i int) error {
	ok, err := f.do("wipe", i)
	if err != nil {
		return err
	}
	if ok {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.nodes[i].running {
			return fmt.Errorf("%s is running", f.nodes[i].name)
		}
		f.nodes[i].wiped, f.nodes[i].storeGone = true, true
		if f.dir != "" {
			if err := os.RemoveAll(filepath.Join(f.dir, cluster.NodeName(i))); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *fake) SetMemoryLimit(context.Context, int, int64) error { return cluster.ErrUnsupported }
func (f *fake) Memory(context.Context, int) (int64, error)       { return 0, cluster.ErrUnsupported }

func (f *fake) State(_ context.Context, i int) (cluster.NodeState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return cluster.NodeState{Running: f.nodes[i].running, Paused: f.nodes[i].paused != nil, FinishedAt: f.nodes[i].ended}, nil
}

func (f *fake) Partition(_ context.Context, groups [][]int) error {
	ok, err := f.do("partition", 0)
	if ok {
		f.mu.Lock()
		f.groups = groups
		f.mu.Unlock()
	}
	return err
}

func (f *fake) Heal(context.Context) error {
	ok, err := f.do("heal", 0)
	if ok {
		f.mu.Lock()
		f.groups = nil
		f.mu.Unlock()
	}
	return err
}

func (f *fake) Supports(c cluster.Capability) error { return f.caps[c] }

func (f *fake) Close(context.Context) error {
	for i := range f.nodes {
		f.down(i)
	}
	if f.dir != "" {
		os.RemoveAll(f.dir)
	}
	return nil
}

// whole reports what is not restored: "" when every node runs unpaused and
// there is no partition.
func (f *fake) whole() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var bad []string
	for _, n := range f.nodes {
		if !n.running {
			bad = append(bad, n.name+" down")
		}
		if n.paused != nil {
			bad = append(bad, n.name+" paused")
		}
	}
	if f.groups != nil {
		bad = append(bad, fmt.Sprintf("partitioned %v", f.groups))
	}
	return strings.Join(bad, ", ")
}
