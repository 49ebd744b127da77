package counter

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// flags are the counter workload's flags on `chaos run`.
type flags struct {
	deltas                                []string
	counters, clients, replicas, maxDelta *int
	retries                               *int
	timeout                               *time.Duration
}

// bindFlags binds the flags on fs. --deltas takes a list: each value is a
// cell.
func bindFlags(fs *pflag.FlagSet) *flags {
	d := Defaults
	f := &flags{}
	fs.StringSliceVar(&f.deltas, "deltas", []string{"positive"}, "positive (every add 1..--max-delta: reads must never go down) or mixed (either sign) (list: cells)")
	f.counters = fs.Int("counters", d.Counters, "counter subjects")
	f.clients = fs.Int("clients", d.Clients, "adders on each node, each on its own connection")
	f.replicas = fs.Int("replicas", d.Replicas, "stream replicas")
	f.maxDelta = fs.Int("max-delta", d.MaxDelta, "the largest add")
	f.retries = fs.Int("add-retries", d.Retries, "retries of an add that timed out or lost its connection, under the same Nats-Msg-Id")
	f.timeout = fs.Duration("add-timeout", d.Timeout, "timeout of one attempt of an add")
	return f
}

// expand makes one Options per --deltas value.
func (f *flags) expand(func(string) bool) ([]workloads.Settings, error) {
	var out []workloads.Settings
	for _, d := range f.deltas {
		if d != "positive" && d != "mixed" {
			return nil, fmt.Errorf("--deltas %q: want positive or mixed", d)
		}
		o := Defaults
		o.Mixed = d == "mixed"
		o.Counters, o.Clients, o.Replicas, o.MaxDelta = *f.counters, *f.clients, *f.replicas, *f.maxDelta
		o.Retries, o.Timeout = *f.retries, *f.timeout
		out = append(out, o)
	}
	return out, nil
}
