// Package followtest is the integration scenario every runtime's
// cluster.LogFollower is tested with (cluster/docker and cluster/local),
// so both are held to the same contract: lines from the call on, each
// within a bound of the server writing it, from the right node; the stream
// ends with the process; a down node is refused; a new call after a restart
// follows the new process, and an old stream never hands out its lines;
// a cancelled ctx ends the stream with its error.
package followtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// Bound is how soon after the server logs a line the reader must have it:
// log-triggered faults must land within 500 ms of the line, and the
// runtimes aim at about 100 ms; the rest is slack for a loaded machine.
const Bound = 250 * time.Millisecond

// Line is one line read through FollowLog and when the test read it.
type Line struct {
	Node int
	Text string
	At   time.Time
}

// stampRE is the start of a nats-server log line: "[pid] 2006/01/02
// 15:04:05.000000 " (the standard logger with pid, time and microseconds,
// nats-server's logger/log.go).
var stampRE = regexp.MustCompile(`^\[(\d+)\] (\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{6}) `)

// Stamp is the time the server logged line at, read in loc (the server's
// time zone: nats-server logs local time).
func Stamp(line string, loc *time.Location) (time.Time, error) {
	m := stampRE.FindStringSubmatch(line)
	if m == nil {
		return time.Time{}, fmt.Errorf("not a nats-server log line: %q", line)
	}
	return time.ParseInLocation("2006/01/02 15:04:05.000000", m[2], loc)
}

// follow reads one FollowLog stream line by line into lines until it ends,
// then sends how it ended (nil for io.EOF) on ended.
func follow(t *testing.T, fl cluster.LogFollower, node int, lines chan<- Line) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, err := fl.FollowLog(ctx, node)
	if err != nil {
		cancel()
		t.Fatalf("FollowLog(%d): %v", node, err)
	}
	ended := make(chan error, 1)
	t.Cleanup(func() { cancel(); r.Close() })
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- Line{Node: node, Text: sc.Text(), At: time.Now()}
		}
		ended <- sc.Err()
	}()
	return ended
}

// await returns the first line holding substr, failing after within; every
// line read meanwhile is checked by seen.
func await(t *testing.T, lines <-chan Line, substr string, within time.Duration, seen func(Line)) Line {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case l := <-lines:
			seen(l)
			if strings.Contains(l.Text, substr) {
				return l
			}
		case <-deadline:
			t.Fatalf("no line with %q read within %s", substr, within)
		}
	}
}

func awaitEnd(t *testing.T, ended <-chan error, what string, within time.Duration) {
	t.Helper()
	select {
	case err := <-ended:
		if err != nil {
			t.Errorf("%s ended with %v, want io.EOF", what, err)
		}
	case <-time.After(within):
		t.Fatalf("%s did not end within %s", what, within)
	}
}

// Run is the scenario, on a running cluster of at least three nodes whose
// servers log in time zone loc. hup sends node a SIGHUP, which makes its
// server log "Reloaded server configuration".
func Run(t *testing.T, c cluster.Cluster, loc *time.Location, hup func(node int) error) {
	fl, ok := c.(cluster.LogFollower)
	if !ok {
		t.Fatalf("the %s runtime's cluster is no cluster.LogFollower", c.Runtime())
	}
	ctx := context.Background()
	called := time.Now()
	lines := make(chan Line, 1000)
	ended := make([]<-chan error, len(c.Nodes()))
	for i := range c.Nodes() {
		ended[i] = follow(t, fl, i, lines)
	}
	seen := checker(t, loc, called)

	const stream = "FOLLOWLOG"
	createStream(t, c.Nodes(), stream)
	leaderLine := fmt.Sprintf("JetStream cluster new stream leader for '$G > %s'", stream)
	l := await(t, lines, leaderLine, 30*time.Second, seen)
	leaders := keepLeaderLines(t, lines, leaderLine, l.Node, seen) // the nodes go on logging
	name := streamLeader(t, c.Nodes(), stream)
	leader := nodeNamed(c.Nodes(), name)
	if leader < 0 {
		t.Fatalf("the stream info names leader %q, no node of the cluster", name)
	}
	if !leaders.logged(leader, Bound) {
		t.Errorf("the stream info names node %d (%s) as leader, but it logged no stream leader line (lines from nodes %v)", leader, name, leaders.nodes())
	} else if leader != l.Node {
		t.Logf("the leadership moved from node %d to node %d, which logged its line too", l.Node, leader)
	}

	// Not read until after the restart: the new process's lines, in the
	// file or on the daemon by then, must not come through it.
	old, err := fl.FollowLog(ctx, leader)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := c.Kill(ctx, leader); err != nil {
		t.Fatal(err)
	}
	awaitEnd(t, ended[leader], "the killed node's stream", 10*time.Second)
	if _, err := fl.FollowLog(ctx, leader); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("FollowLog on a killed node = %v, want a refusal saying it is not running", err)
	}
	if err := c.Start(ctx, leader); err != nil {
		t.Fatal(err)
	}
	relines := make(chan Line, 1000)
	recalled := time.Now()
	follow(t, fl, leader, relines)
	if err := hup(leader); err != nil {
		t.Fatal(err)
	}
	await(t, relines, "Reloaded server configuration", 10*time.Second, checker(t, loc, recalled))
	discard(t, relines)

	rest, err := readAll(old, 10*time.Second)
	if err != nil {
		t.Errorf("the stream opened before the kill: %v", err)
	}
	if strings.Contains(rest, "Reloaded server configuration") {
		t.Errorf("the stream opened before the kill handed out a line of the next process:\n%s", rest)
	}
	cancelEnds(t, fl, leader)
}

// cancelEnds: a stream whose ctx is done fails with ctx's error, at once.
func cancelEnds(t *testing.T, fl cluster.LogFollower, node int) {
	ctx, cancel := context.WithCancel(context.Background())
	r, err := fl.FollowLog(ctx, node)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	defer r.Close()
	cancel()
	if _, err := readAll(r, Bound); !errors.Is(err, context.Canceled) {
		t.Errorf("a stream whose ctx was cancelled ended with %v, want context.Canceled", err)
	}
}

// discard reads lines until the test ends, so that no follower blocks.
func discard(t *testing.T, lines <-chan Line) {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	go func() {
		for {
			select {
			case <-lines:
			case <-stop:
				return
			}
		}
	}()
}

// checker fails a line logged more than a second before the call (the
// interface lets a runtime replay no more) or read more than Bound after
// it was logged, or after the call for a line logged before it.
func checker(t *testing.T, loc *time.Location, called time.Time) func(Line) {
	return func(l Line) {
		at, err := Stamp(l.Text, loc)
		if err != nil {
			t.Errorf("node %d: %v", l.Node, err)
			return
		}
		if at.Before(called.Add(-time.Second)) {
			t.Errorf("node %d: a line logged %s before the call: %q", l.Node, called.Sub(at), l.Text)
		}
		if d := l.At.Sub(later(at, called)); d > Bound {
			t.Errorf("node %d: read %s after it was logged (bound %s): %q", l.Node, d, Bound, l.Text)
		} else {
			t.Logf("node %d: read %s after it was logged: %s", l.Node, d.Round(time.Microsecond), l.Text)
		}
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// readAll reads r to its end, which must come within d.
func readAll(r io.Reader, d time.Duration) (string, error) {
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(r)
		ch <- result{b, err}
	}()
	select {
	case res := <-ch:
		return string(res.b), res.err
	case <-time.After(d):
		return "", fmt.Errorf("did not end within %s", d)
	}
}

func connect(t *testing.T, nodes []cluster.Node) jetstream.JetStream {
	var urls []string
	for _, n := range nodes {
		urls = append(urls, n.ClientURL)
	}
	// The docker runtime's servers advertise container addresses.
	nc, err := nats.Connect(strings.Join(urls, ","), nats.IgnoreDiscoveredServers())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// createStream creates an R3 stream, asking again while the API times out:
// a new raft group can take longer than a request to form on a loaded
// machine, and creating the same config twice is idempotent.
func createStream(t *testing.T, nodes []cluster.Node, name string) {
	js := connect(t, nodes)
	cfg := jetstream.StreamConfig{Name: name, Subjects: []string{"followlog.>"}, Replicas: 3}
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = js.CreateStream(ctx, cfg)
		cancel()
		if err == nil || !errors.Is(err, context.DeadlineExceeded) {
			break
		}
	}
	if err != nil {
		t.Fatalf("create stream %s: %v", name, err)
	}
}

// streamLeader is the server_name of the stream's leader. It asks again
// while a request goes unanswered: a stream info request that reaches the
// group between leaders in its first seconds is answered by no one, not
// even by the next leader (nats-server jetstream_cluster.go,
// isGroupLeaderless; jetstream_api.go, jsStreamInfoRequest), and a loaded
// machine can lose a fresh leader.
func streamLeader(t *testing.T, nodes []cluster.Node, name string) string {
	js := connect(t, nodes)
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var s jetstream.Stream
		s, err = js.Stream(ctx, name)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			t.Logf("stream %s: no answer to its info within 5s, asking again", name)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		info := s.CachedInfo()
		if info.Cluster == nil || info.Cluster.Leader == "" {
			t.Fatalf("stream %s: no leader in its cluster info", name)
		}
		return info.Cluster.Leader
	}
	t.Fatalf("stream %s: no answer to its info within 30s: %v", name, err)
	return ""
}

func nodeNamed(nodes []cluster.Node, name string) int {
	for i, n := range nodes {
		if n.Name == name {
			return i
		}
	}
	return -1
}
