package catchupview

import (
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// The catch-up checks as finding.md sections: they keep no examples, so each
// is one class (kind "") quoting the check's summary.
func init() {
	findings.RegisterClasses(
		findings.Class{Check: catchup.CheckAckedPresent, Slug: "catch-up-acked-missing", Rank: 0, Promise: promiseAcked,
			Title: "Acknowledged messages are missing from the stream, or stored twice, after a replica caught up"},
		findings.Class{Check: catchup.CheckReplicasAgree, Slug: "catch-up-replicas-disagree", Rank: 1, Promise: promiseAgree,
			Title: "The stream's replicas disagree after the catch-up"},
		findings.Class{Check: catchup.CheckCrashLoop, Slug: "catch-up-crash-loop", Rank: 1, Promise: promiseAlive,
			Title: "A replica catching up a stream died again and again (crash loop)"},
		findings.Class{Check: catchup.CheckOOMKill, Slug: "catch-up-oom-kill", Rank: 2, Promise: promiseAlive,
			Title: "A server was killed for running out of memory while a replica caught up"},
		findings.Class{Check: catchup.CheckMemory, Slug: "catch-up-memory", Rank: 3, Promise: promiseMemory,
			Title: "A replica catching up used far more memory than a replica that keeps up"},
		findings.Class{Check: catchup.CheckCatchUp, Slug: "catch-up-not-current", Rank: 4, Promise: promiseCurrent,
			Title: "A restarted replica did not become current within the bound"},
	)
}

const (
	promiseAcked = "A message that JetStream acknowledged (a PubAck) on a replicated stream was stored by a quorum: it stays " +
		"in the stream once, through the restart of a replica and its catch-up (JetStream docs, \"Message acknowledgement\")."
	promiseAgree = "Once a replica has caught up, it holds the same messages at the same sequences as the leader (nats-server " +
		"`raft.go` replicates one log; `jetstream_cluster.go`, `processSnapshot` and `processCatchupMsg` rebuild a replica from it)."
	promiseAlive = "A nats-server keeps running until it is stopped, within the memory it is given, whatever its peers send " +
		"it; a replica that rebuilds a stream does so within its limit (nats-server `jetstream_cluster.go`, " +
		"`runCatchup` limits the bytes in flight)."
	promiseMemory = "A replica catching up applies the backlog as it arrives, so its memory stays near what a replica that " +
		"keeps up needs, not proportional to the backlog (nats-server `raft.go`, `ResumeApply` and `applyCommit`)."
	promiseCurrent = "A restarted replica catches up and is reported current (`/healthz`, the stream's replica info) within " +
		"a time that the backlog and the link's bandwidth bound."
)
