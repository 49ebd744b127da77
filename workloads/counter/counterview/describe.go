package counterview

import (
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/counter"
)

// A counter cell's settings in a finding's words (see package counter's
// doc for the workload in full).
func init() { findings.RegisterDescriber(counter.Name, findings.Describe(findingSetup, findingSteps)) }

func findingSetup(o counter.Options, directGet bool) string {
	return fmt.Sprintf("stream `%s` on `%s.>`, %d replicas, file storage, `AllowMsgCounter`, Direct Get %s. %s; %s.",
		o.Stream, o.Stream, o.Replicas, record.OnOff(directGet), adders(o), readers(directGet))
}

func findingSteps(o counter.Options, directGet bool) string {
	return fmt.Sprintf("create stream `%s` (subjects `%s.>`, %d replicas, `allow_msg_counter: true`, `allow_direct: %v`); run %s; and %s",
		o.Stream, o.Stream, o.Replicas, directGet, adders(o), readers(directGet))
}

func adders(o counter.Options) string {
	sign := "positive"
	if o.Mixed {
		sign = "of either sign"
	}
	return fmt.Sprintf("%d %s on each node, each on its own connection, adding %s deltas of at most %d to %d counters (`%s.c0` ...): "+
		"each add a publish with `Nats-Incr` and a `Nats-Msg-Id` of its own, retried under that id up to %d times when it times out "+
		"(%s each) or loses its connection",
		o.Clients, plural(o.Clients, "client", "clients"), sign, o.MaxDelta, o.Counters, o.Stream, o.Retries, o.Timeout)
}

func readers(directGet bool) string {
	if directGet {
		return "a reader on every node reading each counter in turn, by turns through Direct Get and from the leader (`$JS.API.STREAM.MSG.GET` with `last_by_subj`)"
	}
	return "a reader on every node reading each counter in turn from the leader (`$JS.API.STREAM.MSG.GET` with `last_by_subj`)"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
