package catchup

import "github.com/jetstream-chaos/jetstream-chaos/observe"

// The server's log says what the samples cannot: why a catch-up stalled or
// started over. These are the lines worth counting (nats-server
// jetstream_cluster.go, the catch-up of a stream and its raft group).
var logPatterns = []string{
	"Catchup for stream",             // started, complete, stalled, errored, aborted
	"Resetting stream cluster state", // the replica gave up and starts over
	"Falling behind in health check", // commit != applied: the report's symptom
	"is not current",                 // health check: stream or JetStream not current
	"Healthcheck failed",
}

// LogMatch counts one pattern in one node's log (observe.LogMatch).
type LogMatch = observe.LogMatch

// ScanLogs counts catchup's lines of interest in dir/<node>.log.
func ScanLogs(dir string, nodes []string) []LogMatch {
	return observe.CountLogLines(dir, nodes, logPatterns)
}
