package findings

import (
	"fmt"
	"slices"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
)

// signature is a server log line that marks an anomaly the toolkit has
// cut down to a reproduction in repro/: a finding whose cell logged it
// says so, so that whoever files it can point to a test that shows it
// without the toolkit.
type signature struct {
	Pattern string   // a substring of the log line
	Least   int      // how many times a node must log it
	Checks  []string // the checks whose findings it explains
	Repro   string   // the reproduction's folder in jetstream-chaos
	Run     string   // the command that runs it, from a checkout
	What    string   // the anomaly, in a few words
}

// signatures are the known ones.
var signatures = []signature{{
	Pattern: "Expected first catchup entry to be a snapshot and peerstate, will retry",
	Least:   3,
	Checks:  []string{checker.NameRecovery, replicas.NameDivergence},
	Repro:   "repro/partitionheal",
	Run:     "go test -v -count=1 -run DeposedLeader ./repro/partitionheal",
	What:    "after a partition heals, the deposed stream leader stays behind for a minute or more in a catch-up retry loop, while a cut follower catches up in seconds",
}}

// knownSignatures are the sentences naming the known anomalies whose log
// line a node of the cell logged often enough, for a finding of check.
func (c *cell) knownSignatures(check string) []string {
	var out []string
	for _, sig := range signatures {
		if !slices.Contains(sig.Checks, check) {
			continue
		}
		for _, nl := range c.matching([]string{sig.Pattern}) {
			if nl.Total < sig.Least {
				continue
			}
			first, last := nl.Lines[0].Time, nl.Lines[len(nl.Lines)-1].Time
			out = append(out, fmt.Sprintf("%s logged `%s` %d times, from %s to %s (its log's clock). That is the signature of a known anomaly, reproduced without Docker in jetstream-chaos's `%s` (`%s`): %s.",
				nl.Node, sig.Pattern, nl.Total, first.Format("15:04:05.000"), last.Format("15:04:05.000"), sig.Repro, sig.Run, sig.What))
		}
	}
	return out
}
