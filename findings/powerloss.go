package findings

import (
	"fmt"
	"strings"
)

// A power loss (nemesis power-loss, power-loss-majority, power-loss-all)
// rolls a store back to its last fsync, and JetStream fsyncs only every
// sync_interval unless it is "always". NATS documents that acknowledged
// messages can then be lost even on a replicated stream: servers that fail
// together before their fsync, or one that lost data locally and rejoins to
// form a majority with servers that never had a message (nats.docs,
// nats-concepts/jetstream, "Syncing data to disk", nats-io/nats.docs PR
// 896). A finding in such a cell may be that documented trade-off, and
// says so before anything else: it is a bug report only once it
// reproduces with sync_interval always.

// defaultSyncInterval is nats-server's (server/filestore.go,
// defaultSyncInterval).
const defaultSyncInterval = "2m"

// powerLossTargets are the nodes whose power was cut in the cell, in
// order, each once; none when no power-loss window was injected.
func (c *cell) powerLossTargets() []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range c.res.Faults {
		if !w.Injected || !hasPowerLoss(w.Fault) {
			continue
		}
		for _, t := range w.Targets {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
		if len(w.Targets) == 0 && !seen["?"] {
			seen["?"] = true
			out = append(out, "a node")
		}
	}
	return out
}

func hasPowerLoss(fault string) bool {
	for _, f := range strings.Split(fault, "+") {
		if strings.HasPrefix(f, "power-loss") {
			return true
		}
	}
	return false
}

// powerLossCaveat is what a reader must know before filing a finding of
// a cell whose nodes lost power; "" when none did. The nodes are those of
// the power-loss windows: a combination's window (pause-kill+power-loss)
// names its other fault's targets too, so it says "windows on", not whose
// power was cut.
func (c *cell) powerLossCaveat() string {
	targets := c.powerLossTargets()
	if len(targets) == 0 {
		return ""
	}
	on := strings.Join(targets, ", ")
	who := "nodes lost power in the fault windows on " + on + " (a store whose power was cut rolls back to its last fsync; the windows below say what each discarded)"
	switch interval := c.run.SyncInterval; {
	case !c.run.HasSpec:
		return "**Before filing:** " + who + ", and the run did not record the nodes' `sync_interval`. Unless it was `always`, " +
			"NATS documents that a power loss can lose acknowledged messages (" + syncDocs + "); this is a bug report only if it reproduces with `sync_interval: always`."
	case interval == "always":
		return "The nodes ran with `sync_interval: always` (an fsync on every write), so the power cuts (fault windows on " +
			on + "), which rolled stores back to their last fsync, do not explain it: NATS documents such a loss only for longer intervals (" + syncDocs + ")."
	default:
		said := fmt.Sprintf("`sync_interval: %s`", interval)
		if interval == "" {
			said = "the default `sync_interval` (" + defaultSyncInterval + ", nats-server `server/filestore.go`)"
		}
		return "**Before filing:** " + who + ", and the nodes ran with " + said + ": JetStream acknowledges a write once a quorum has it " +
			"and fsyncs it only within that interval. NATS documents that a power loss can then lose acknowledged messages, even on a replicated stream " +
			"(" + syncDocs + "). This is a bug report only if it reproduces with `sync_interval: always` (`chaos run --sync-interval always`)."
	}
}

const syncDocs = "NATS docs, JetStream concepts, \"Syncing data to disk\""
