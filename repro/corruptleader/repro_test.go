package corruptleader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// affected are the releases on which a corrupt leader was measured to
// leave a new replica catching up for good (README.md). On them the test
// holds that the anomaly still shows; on any other server (a branch, a
// newer release) that it does not.
var affected = []string{"2.11.8", "2.12.3", "2.14.10", "2.15.3"}

func known() bool { return slices.Contains(affected, server.VERSION) }

const (
	stream   = "S"
	messages = 500
	// catchUpBound is how long the new replica may take to hold every
	// message and answer /healthz OK. With a sound leader it took 0.3-3 s;
	// with the corrupt one it was still catching up after 90 s.
	catchUpBound = 30 * time.Second
)

// payload is every message's body: the bit flipped is found by it.
var payload = bytes.Repeat([]byte("p"), 1024)

// node is one in-process server, the options to start it again with, and
// how many catch-up load errors it logged.
type node struct {
	opts       *server.Options
	s          *server.Server
	loadErrors *atomic.Int64
	fatal      *atomic.Pointer[string] // what its server last logged as fatal
}

func (n *node) name() string { return n.opts.ServerName }

// warnings counts the log lines that show the anomaly on the leader's side.
type warnings struct {
	server.Logger
	loadErrors *atomic.Int64
	fatal      *atomic.Pointer[string] // the server's last fatal error
}

func (w warnings) Fatalf(f string, a ...any) {
	msg := fmt.Sprintf(f, a...)
	w.fatal.Store(&msg)
}

type quiet struct{}

func (quiet) Noticef(string, ...any) {}
func (quiet) Warnf(string, ...any)   {}
func (quiet) Fatalf(string, ...any)  {}
func (quiet) Errorf(string, ...any)  {}
func (quiet) Debugf(string, ...any)  {}
func (quiet) Tracef(string, ...any)  {}

func (w warnings) Warnf(f string, a ...any) {
	if strings.HasPrefix(f, "Error loading message for catchup") {
		w.loadErrors.Add(1)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// start starts four routed servers, n1 to n4: the stream's three replicas
// take three of them and the fourth is where a removed peer's replica goes.
// The cluster ports are picked free before the servers start, since each
// server's routes name the others'; another process can take one in
// between, so a server that could not listen on its port starts the four
// again on new ports (at most three times).
func start(t *testing.T) []*node {
	t.Helper()
	for attempt := 1; ; attempt++ {
		nodes, err := tryStart(t)
		if err == nil {
			return nodes
		}
		for _, n := range nodes {
			n.s.Shutdown()
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("attempt %d: %v; again on other ports", attempt, err)
	}
}

// errPortTaken: a server could not listen on the cluster port picked for it.
var errPortTaken = errors.New("cluster port taken")

func tryStart(t *testing.T) ([]*node, error) {
	ports := make([]int, 4)
	for i := range ports {
		ports[i] = freePort(t)
	}
	var nodes []*node
	for i := range ports {
		o := &server.Options{ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: -1,
			HTTPHost: "127.0.0.1", HTTPPort: -1, JetStream: true, StoreDir: t.TempDir(), NoSigs: true,
			Cluster: server.ClusterOpts{Name: "repro", Host: "127.0.0.1", Port: ports[i], NoAdvertise: true}}
		for j, p := range ports {
			if j != i {
				o.Routes = append(o.Routes, server.RoutesFromStr(fmt.Sprintf("nats://127.0.0.1:%d", p))...)
			}
		}
		n := &node{opts: o, loadErrors: &atomic.Int64{}, fatal: &atomic.Pointer[string]{}}
		if err := n.tryRun(t); err != nil {
			return nodes, err
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// run starts n's server (again) on its store.
func (n *node) run(t *testing.T) {
	t.Helper()
	if err := n.tryRun(t); err != nil {
		t.Fatal(err)
	}
}

// tryRun starts n's server and says why it did not become ready.
func (n *node) tryRun(t *testing.T) error {
	s, err := server.NewServer(n.opts.Clone())
	if err != nil {
		return err
	}
	s.SetLoggerV2(warnings{quiet{}, n.loadErrors, n.fatal}, false, false, false)
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		why := "no fatal error logged"
		if f := n.fatal.Load(); f != nil {
			why = *f
		}
		if strings.Contains(why, "Error listening on router port") {
			return fmt.Errorf("%s not ready: %s: %w", n.name(), why, errPortTaken)
		}
		return fmt.Errorf("%s not ready within 10 s: %s", n.name(), why)
	}
	n.s = s
	return nil
}

func byName(nodes []*node, name string) *node {
	for _, n := range nodes {
		if n.name() == name {
			return n
		}
	}
	return nil
}

// flipPayloadBit stops n and flips one bit in the middle of the first
// message's body in its stream's first block, as a disk's bit rot would.
func flipPayloadBit(t *testing.T, n *node) string {
	t.Helper()
	n.s.Shutdown()
	n.s.WaitForShutdown()
	blk := filepath.Join(n.opts.StoreDir, "jetstream", "$G", "streams", stream, "msgs", "1.blk")
	b, err := os.ReadFile(blk)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, payload)
	if at < 0 {
		t.Fatalf("%s: no message body found in %d bytes", blk, len(b))
	}
	at += len(payload) / 2
	b[at] ^= 0x01
	if err := os.WriteFile(blk, b, 0o640); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s: bit 0 of byte %d flipped (message 1's body)", filepath.Base(blk), at)
}

// replicas says, from the stream leader's info, who leads and how it sees
// each replica.
func replicas(ctx context.Context, js jetstream.JetStream) (leader string, peers map[string]*jetstream.PeerInfo, err error) {
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return "", nil, err
	}
	info := st.CachedInfo()
	if info.Cluster == nil || info.Cluster.Leader == "" {
		return "", nil, fmt.Errorf("no leader")
	}
	peers = map[string]*jetstream.PeerInfo{}
	for _, p := range info.Cluster.Replicas {
		peers[p.Name] = p
	}
	return info.Cluster.Leader, peers, nil
}

// await polls cond every 250 ms until it holds or bound passes.
func await(bound time.Duration, cond func() (bool, string)) (bool, string) {
	var seen string
	for deadline := time.Now().Add(bound); ; time.Sleep(250 * time.Millisecond) {
		var ok bool
		if ok, seen = cond(); ok || time.Now().After(deadline) {
			return ok, seen
		}
	}
}

// healthy is n's own /healthz, over HTTP as an operator's probe asks it
// (Server.Healthz is exported only from 2.14).
func healthy(n *node) (bool, string) {
	resp, err := http.Get(fmt.Sprintf("http://%s/healthz", n.s.MonitorAddr()))
	if err != nil {
		return false, fmt.Sprintf("%s /healthz: %v", n.name(), err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Sprintf("%s /healthz %d: %s", n.name(), resp.StatusCode, bytes.TrimSpace(body))
	}
	return true, n.name() + " /healthz ok"
}

// held is how many messages n's copy of the stream holds.
func held(n *node) uint64 {
	j, err := n.s.Jsz(&server.JSzOptions{Streams: true})
	if err != nil {
		return 0
	}
	for _, a := range j.AccountDetails {
		for _, s := range a.Streams {
			if s.Name == stream {
				return s.State.Msgs
			}
		}
	}
	return 0
}

// moveLeader steps the stream's leader down until want leads (the
// preferred placement is honoured from 2.11; earlier ones pick at random).
func moveLeader(t *testing.T, nc *nats.Conn, js jetstream.JetStream, want string) {
	t.Helper()
	ok, seen := await(30*time.Second, func() (bool, string) {
		leader, _, err := replicas(context.Background(), js)
		if err == nil && leader == want {
			return true, ""
		}
		nc.Request("$JS.API.STREAM.LEADER.STEPDOWN."+stream, []byte(fmt.Sprintf(`{"placement":{"preferred":%q}}`, want)), 5*time.Second)
		time.Sleep(time.Second)
		return false, fmt.Sprintf("leader %s, %v", leader, err)
	})
	if !ok {
		t.Fatalf("could not make %s the leader: %s", want, seen)
	}
}

// removePeer removes name from the stream's peers; the stream places the
// replica on the one server left out.
func removePeer(t *testing.T, nc *nats.Conn, name string) {
	t.Helper()
	req, _ := json.Marshal(map[string]string{"peer": name})
	ok, seen := await(30*time.Second, func() (bool, string) {
		m, err := nc.Request("$JS.API.STREAM.PEER.REMOVE."+stream, req, 5*time.Second)
		if err != nil {
			return false, err.Error()
		}
		var r struct {
			Success bool `json:"success"`
		}
		json.Unmarshal(m.Data, &r)
		return r.Success, string(m.Data)
	})
	if !ok {
		t.Fatalf("peer remove %s: %s", name, seen)
	}
}
