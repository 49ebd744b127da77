package partitionheal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// node is one in-process server and what it logged.
type node struct {
	name string
	s    *server.Server
	log  *recorder
}

// recorder keeps a server's warnings.
type recorder struct {
	mu   sync.Mutex
	warn []string
}

func (r *recorder) Noticef(string, ...any) {}
func (r *recorder) Debugf(string, ...any)  {}
func (r *recorder) Tracef(string, ...any)  {}
func (r *recorder) Fatalf(f string, a ...any) {
	r.Errorf(f, a...)
}
func (r *recorder) Errorf(f string, a ...any) { r.Warnf(f, a...) }
func (r *recorder) Warnf(f string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warn = append(r.warn, fmt.Sprintf("%s %s", time.Now().Format("15:04:05.000"), fmt.Sprintf(f, a...)))
}

// all is what was recorded, one line each.
func (r *recorder) all() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.warn, "\n")
}

func (r *recorder) count(sub string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, w := range r.warn {
		if strings.Contains(w, sub) {
			n++
		}
	}
	return n
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

// cluster is three servers routed through links; links[i][j] carries
// server i's routes to server j.
type cluster struct {
	nodes []*node
	links [3][3]*link
}

// start starts the three servers. Their cluster ports are picked free
// before they start, since the links forward to them; another process can
// take one in between, so a server that could not listen on its port
// starts the three again on new ports (at most three times).
func start(t *testing.T) *cluster {
	t.Helper()
	for attempt := 1; ; attempt++ {
		c, err := tryStart(t)
		if err == nil {
			return c
		}
		for _, n := range c.nodes {
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

func tryStart(t *testing.T) (*cluster, error) {
	c := &cluster{}
	var cport [3]int
	for i := range 3 {
		cport[i] = freePort(t)
	}
	for i := range 3 {
		for j := range 3 {
			if i != j {
				c.links[i][j] = newLink(t, fmt.Sprintf("127.0.0.1:%d", cport[j]))
			}
		}
	}
	for i := range 3 {
		o := &server.Options{ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: -1,
			JetStream: true, StoreDir: t.TempDir(), NoSigs: true,
			Cluster: server.ClusterOpts{Name: "repro", Host: "127.0.0.1", Port: cport[i], NoAdvertise: true}}
		for j := range 3 {
			if i != j {
				o.Routes = append(o.Routes, server.RoutesFromStr("nats://"+c.links[i][j].addr())...)
			}
		}
		s, err := server.NewServer(o)
		if err != nil {
			return c, err
		}
		rec := &recorder{}
		s.SetLoggerV2(rec, false, false, false)
		s.Start()
		t.Cleanup(s.Shutdown)
		c.nodes = append(c.nodes, &node{name: o.ServerName, s: s, log: rec})
	}
	for _, n := range c.nodes {
		if !n.s.ReadyForConnections(10 * time.Second) {
			if n.log.count("Error listening on router port") > 0 {
				return c, fmt.Errorf("%s not ready: %w", n.name, errPortTaken)
			}
			return c, fmt.Errorf("%s not ready within 10 s; it logged: %s", n.name, n.log.all())
		}
	}
	return c, nil
}

// isolate cuts node i from the others, or joins it again.
func (c *cluster) isolate(i int, cut bool) {
	for j := range 3 {
		if j != i {
			c.links[i][j].setCut(cut)
			c.links[j][i].setCut(cut)
		}
	}
}

func (c *cluster) index(name string) int {
	for i, n := range c.nodes {
		if n.name == name {
			return i
		}
	}
	return -1
}

func connect(t *testing.T, urls ...string) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(strings.Join(urls, ","), nats.IgnoreDiscoveredServers(), nats.MaxReconnects(-1),
		nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	return nc, js
}

// publisher publishes to S, each publish its own value, until stopped;
// it counts the acknowledged publishes and keeps the highest sequence
// acknowledged.
type publisher struct {
	done  chan struct{}
	wg    sync.WaitGroup
	acked atomic.Int64
	high  atomic.Uint64
}

func startPublisher(js jetstream.JetStream) *publisher {
	p := &publisher{done: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for i := 0; ; i++ {
			select {
			case <-p.done:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			if ack, err := js.Publish(ctx, "S.x", []byte(fmt.Sprintf("m-%d", i))); err == nil {
				p.acked.Add(1)
				for h := p.high.Load(); ack.Sequence > h && !p.high.CompareAndSwap(h, ack.Sequence); h = p.high.Load() {
				}
			}
			cancel()
		}
	}()
	return p
}

func (p *publisher) stop() {
	close(p.done)
	p.wg.Wait()
}

// urls are the client URLs of servers is.
func (c *cluster) urls(is ...int) []string {
	var out []string
	for _, i := range is {
		out = append(out, c.nodes[i].s.ClientURL())
	}
	return out
}

// createStream creates the R3 file stream S on S.> (retrying while the
// just-started cluster cannot place it yet) and returns a client of every
// server and the index of the stream's leader.
func createStream(t *testing.T, c *cluster) (jetstream.JetStream, int) {
	t.Helper()
	_, js := connect(t, c.urls(0, 1, 2)...)
	ctx := context.Background()
	var st jetstream.Stream
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; {
		st, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: "S", Subjects: []string{"S.>"}, Replicas: 3})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil || info.Cluster == nil {
		t.Fatalf("stream info: %v", err)
	}
	return js, c.index(info.Cluster.Leader)
}

// affected are the releases on which a leader cut was measured to leave
// the deposed leader behind (README.md has the rates).
// On them the test holds that the anomaly still shows; on any other
// server (a branch, a newer release) that it does not.
var affected = []string{"2.14.10", "2.15.3"}

func known() bool { return slices.Contains(affected, server.VERSION) }

// catchUpBound is how long the cut server may take to be current again
// after the heal. A cut follower (the control) took 5.6 to 8.8 s with
// the publisher still running for 1 s after the heal; the deposed leader
// of the anomaly stays behind for over 90 s.
const catchUpBound = 30 * time.Second

// attempts is how many cuts, each on a new cluster, a case makes until
// the anomaly shows: a leader cut showed it in 8 of 10 on v2.15.3, so one
// cut would miss it now and then. Under load it shows less often: with
// make test's packages and tests in parallel it once missed 3 cuts in a
// row (the deposed leader current 27.7 s, 5.8 s and 1.1 s after the heal),
// while each of 3 other such runs showed it at the first cut. A release
// that fixed it misses all 5, as before. The control cuts a follower
// controlCuts times, each of which must catch up within the bound.
const (
	attempts    = 5
	controlCuts = 3
)

// TestIntegrationDeposedLeaderCatchesUp: an R3 stream's leader is cut
// from the two other servers while a client on their side publishes,
// then joined again; the deposed leader must be current again within
// catchUpBound, in each of up to attempts cuts. The control cuts a
// follower instead, the same way. 1 to 3 min, so the unit suite (-short)
// skips it; the name puts it in
// the integration suite (make integration).
func TestIntegrationDeposedLeaderCatchesUp(t *testing.T) {
	if testing.Short() {
		t.Skip("1 to 3 min of cuts and catch-ups: make test and make integration run it")
	}
	for _, tc := range []struct {
		name   string
		leader bool
	}{
		{"the leader cut", true},
		{"a follower cut", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			anomaly := ""
			cuts := attempts
			if !tc.leader {
				cuts = controlCuts
			}
			for try := 1; try <= cuts && anomaly == ""; try++ {
				took, detail := cutAndHeal(t, tc.leader)
				if took < 0 || took > catchUpBound {
					anomaly = fmt.Sprintf("the cut server was not current again within %s of the heal (cut %d of %d): %s", catchUpBound, try, cuts, detail)
				}
				t.Logf("nats-server %s, cut %d: %s", server.VERSION, try, cmp.Or(anomaly, detail))
			}
			switch {
			case tc.leader && known() && anomaly == "":
				t.Errorf("nats-server %s is listed as affected, but the anomaly did not show: if this release fixed it, take it off the list", server.VERSION)
			case (!tc.leader || !known()) && anomaly != "":
				t.Error(anomaly)
			}
		})
	}
}

// cutAndHeal cuts the stream's leader (or a follower) from the other two
// servers for 8 s, 3 s into a publisher's run on their side, and says how
// long after the heal every replica was current (-1: not within
// catchUpBound plus 5 s), and what the stream and the cut server's log
// showed.
func cutAndHeal(t *testing.T, leader bool) (time.Duration, string) {
	c := start(t)
	js, l := createStream(t, c)
	ctx := context.Background()
	role := "the stream leader"
	if !leader {
		l, role = (l+1)%3, "a follower"
	}
	deposed := c.nodes[l].name
	others := []int{(l + 1) % 3, (l + 2) % 3}
	_, jsM := connect(t, c.urls(others...)...)
	pub := startPublisher(jsM)
	time.Sleep(3 * time.Second)
	t0 := time.Now()
	c.isolate(l, true)
	t.Logf("cut %s (%s) from the others after %d acknowledged publishes", deposed, role, pub.acked.Load())
	time.Sleep(8 * time.Second)
	c.isolate(l, false)
	healed := time.Now()
	time.Sleep(time.Second)
	pub.stop()
	t.Logf("joined %s again after %s; %d publishes acknowledged in all", deposed, healed.Sub(t0).Round(time.Millisecond), pub.acked.Load())

	took, state := time.Duration(-1), ""
	for time.Since(healed) < catchUpBound+5*time.Second {
		if s, ok := replicaState(ctx, js); s != "" {
			state = s
			if ok {
				took = time.Since(healed)
				break
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	retries := c.nodes[l].log.count(retryWarning)
	detail := fmt.Sprintf("%s; %s logged %q %d times", state, deposed, retryWarning, retries)
	if took >= 0 {
		detail = fmt.Sprintf("every replica current %s after the heal; %s", took.Round(time.Millisecond), detail)
	}
	return took, detail
}

// retryWarning is what the deposed leader logs, again and again, while
// it does not catch up (nats-server raft.go, processAppendEntry).
const retryWarning = "Expected first catchup entry to be a snapshot and peerstate, will retry"

// replicaState describes the stream's replicas, and whether every one is
// current with no lag.
func replicaState(ctx context.Context, js jetstream.JetStream) (string, bool) {
	st, err := js.Stream(ctx, "S")
	if err != nil {
		return "", false
	}
	si := st.CachedInfo()
	if si.Cluster == nil || si.Cluster.Leader == "" {
		return "", false
	}
	out, ok := fmt.Sprintf("leader %s, last seq %d", si.Cluster.Leader, si.State.LastSeq), true
	for _, r := range si.Cluster.Replicas {
		out += fmt.Sprintf(", %s current %v lag %d", r.Name, r.Current, r.Lag)
		ok = ok && r.Current && r.Lag == 0
	}
	return out, ok
}
