package observe

import (
	"strconv"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// TestLagSeries: the target's lag is put together at each reading of its
// copy, from the latest reading of the node that said it led (a failed
// reading of a leader withdraws its claim) and the target's latest
// /healthz; without a leader it says so and counts nothing behind.
func TestLagSeries(t *testing.T) {
	stream := func(at int64, node, leader string, last uint64, lag uint64) Sample {
		return Sample{T: at * 1e6, Node: node, Kind: KindStream, Stream: &Stream{Name: "S", Has: true, LastSeq: last, Msgs: last,
			Bytes: last * 10, Leader: leader, Replicas: []cluster.Peer{{Name: "n3", Lag: lag}}}}
	}
	rec := &Record{Samples: []Sample{
		stream(100, "n1", "n1", 20, 4), stream(110, "n3", "n1", 15, 0), // n1 leads; no /healthz yet
		{T: 200e6, Node: "n3", Kind: KindHealth, Status: 503, Err: "JetStream stream 'S' is not current"},
		stream(300, "n1", "n1", 30, 1), stream(310, "n3", "n1", 29, 0),
		{T: 400e6, Node: "n1", Kind: KindStream, Err: "connection refused"}, // n1 down: no claim
		{T: 450e6, Node: "n3", Kind: KindHealth, Status: 200},
		stream(510, "n3", "", 30, 0), // nobody leads
		stream(600, "n2", "n2", 40, 9), stream(610, "n3", "n2", 40, 0),
		{T: 700e6, Node: "n3", Kind: KindStream, Err: "timeout"},
	}}
	got := LagSeries(rec, "n3")
	var lines []string
	for _, l := range got {
		lines = append(lines, strings.Join([]string{strconv.Itoa(int(l.TMs)), l.Leader, strconv.Itoa(int(l.Behind)), strconv.Itoa(int(l.ReplicaLag)),
			map[bool]string{true: "healthy", false: "not healthy: " + l.TargetHealth}[l.TargetHealthy], l.Err}, " "))
	}
	want := []string{
		"110 n1 5 4 not healthy: no /healthz answer yet ",
		"310 n1 1 1 not healthy: JetStream stream 'S' is not current ",
		"510  0 0 healthy no node said it led the stream",
		"610 n2 0 9 healthy ",
		"700 n2 40 9 healthy target /jsz: timeout",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lag\n got %s\nwant %s", strings.Join(lines, "\n     "), strings.Join(want, "\n     "))
	}
	if LagSeries(rec, "") != nil {
		t.Error("lag of no target")
	}
}

// TestLeaderOf: the latest claim wins, but a claim without replicas (a
// node restoring its stream names itself, as v2.15.3 did) loses to one
// with them, later or not.
func TestLeaderOf(t *testing.T) {
	claim := func(at int64, node string, replicas ...string) Sample {
		s := Sample{T: at, Node: node, Kind: KindStream, Stream: &Stream{Name: "S", Has: true, Leader: node}}
		for _, r := range replicas {
			s.Stream.Replicas = append(s.Stream.Replicas, cluster.Peer{Name: r})
		}
		return s
	}
	follower := Sample{T: 9, Node: "n3", Kind: KindStream, Stream: &Stream{Name: "S", Has: true, Leader: "n1"}}
	cases := []struct {
		name   string
		claims []Sample
		want   string // "" for none
	}{
		{"none", []Sample{follower}, ""},
		{"one", []Sample{claim(1, "n1", "n2", "n3"), follower}, "n1"},
		{"the latest of two", []Sample{claim(1, "n1", "n2", "n3"), claim(2, "n2", "n1", "n3")}, "n2"},
		{"a restoring node's later claim loses", []Sample{claim(1, "n1", "n2", "n3"), claim(2, "n2")}, "n1"},
		{"R1: the latest", []Sample{claim(1, "n1"), claim(2, "n2")}, "n2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			latest := map[string]Sample{}
			for _, s := range tc.claims {
				latest[s.Node] = s
			}
			got, ok := LeaderOf(latest)
			if tc.want == "" && ok || tc.want != "" && (!ok || got.Node != tc.want) {
				t.Errorf("LeaderOf = %q %v, want %q", got.Node, ok, tc.want)
			}
		})
	}
}
