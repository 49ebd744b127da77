package catchupview

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/reports"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/catchup"
)

// A catch-up cell's settings in a finding's words: the report's scenario
// (package catchup's doc) with the cell's numbers.
func init() { findings.RegisterDescriber(catchup.Name, findings.Describe(findingSetup, findingSteps)) }

func findingSetup(o catchup.Options, _ bool) string {
	o = o.WithDefaults()
	return "stream `" + o.Stream + "`, 3 replicas, file storage, Direct Get " + reports.OnOff(o.DirectGet) + "; " + scenario(o) + "."
}

func findingSteps(o catchup.Options, _ bool) string {
	o = o.WithDefaults()
	return "create a stream with 3 replicas (file storage, `allow_direct` " + fmt.Sprint(o.DirectGet) + "); " + scenario(o)
}

// scenario is the cell's fill, kill, wipe and restart, as steps.
func scenario(o catchup.Options) string {
	who := "a follower of the stream"
	if o.Target == catchup.Leader {
		who = "the stream's leader"
	}
	s := fmt.Sprintf("fill it with %s of %s messages from %d publishers (each message with a unique id header, up to %d unacknowledged per publisher); "+
		"kill %s, wipe its store as if it got a new volume", o.Backlog, o.Payload, o.Publishers, o.Window, who)
	if o.Rate > 0 {
		s += fmt.Sprintf(", keep it down %s while publishing %s/s", o.Down, o.Rate)
	} else {
		s += fmt.Sprintf(", keep it down %s with no publishing", o.Down)
	}
	s += "; start it again"
	if o.MemoryLimit > 0 {
		s += " under a hard memory limit of " + o.MemoryLimit.String()
	}
	if g := o.GoMemLimitBytes(); g > 0 {
		s += " with GOMEMLIMIT " + bytesize.Bytes(g).String()
	}
	if o.MaxOutstandingCatchup > 0 {
		s += " and `max_outstanding_catchup` " + o.MaxOutstandingCatchup.String() + " in every node's jetstream block"
	}
	switch {
	case o.Rate > 0 && o.WriteFor > 0:
		s += fmt.Sprintf(", publishing on for %s", o.WriteFor)
	case o.Rate > 0:
		s += ", publishing on until it is current"
	}
	return s + "; wait until it holds every message the leader held and its `/healthz` is ok, watching its memory and restarts"
}
