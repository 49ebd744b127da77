package queue

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// flags are the queue workload's flags on `chaos run`.
type flags struct {
	retentions, acks, patterns, rates []string
	producers, consumers, workers     *int
	replicas, batch, maxDeliver       *int
	publishRetries                    *int
	nakRate, skipRate                 *float64
	fetchWait, ackWait                *time.Duration
	publishTimeout, dupeWindow        *time.Duration
	stallBound, drainTimeout          *time.Duration
}

// bindFlags binds the flags on fs. --retention, --ack, --consumer-pattern
// and --rate take lists: every combination is a cell.
func bindFlags(fs *pflag.FlagSet) *flags {
	d := Defaults
	f := &flags{}
	fs.StringSliceVar(&f.retentions, "retention", []string{string(d.Retention)}, "stream retention: limits, workqueue or interest (list: cells)")
	fs.StringSliceVar(&f.acks, "ack", []string{string(d.Ack)}, "how pull workers ack: sync (AckSync, waits for the server's reply) or fire-and-forget (list: cells)")
	fs.StringSliceVar(&f.patterns, "consumer-pattern", []string{string(d.Pattern)}, "pull (durable pull consumers, explicit ack) or ordered (ordered push consumers; needs --retention limits) (list: cells)")
	fs.StringSliceVar(&f.rates, "rate", []string{fmt.Sprint(d.Rate)}, "publishes/s over all producers, 0 = as fast as they go (list: cells)")
	f.producers = fs.Int("producers", d.Producers, "producers, spread over the nodes; each publishes its own unique values in order")
	f.consumers = fs.Int("consumers", d.Consumers, "durable consumers (or ordered subscriptions), each reading every message (1 with --retention workqueue unless given)")
	f.workers = fs.Int("workers", d.Workers, "pull workers per durable consumer, spread over the nodes")
	f.replicas = fs.Int("replicas", d.Replicas, "stream replicas (consumers inherit them)")
	f.batch = fs.Int("batch", d.Batch, "messages per Fetch")
	f.fetchWait = fs.Duration("fetch-wait", d.FetchWait.D(), "how long one Fetch waits for messages")
	f.ackWait = fs.Duration("ack-wait", d.AckWait.D(), "consumer AckWait: an unacknowledged delivery is redelivered after it")
	f.maxDeliver = fs.Int("max-deliver", d.MaxDeliver, "consumer MaxDeliver, -1 = unlimited")
	f.nakRate = fs.Float64("nak-rate", d.NakRate, "fraction of deliveries a worker naks during the run (redelivered at once)")
	f.skipRate = fs.Float64("skip-rate", d.SkipRate, "fraction of deliveries a worker leaves unacknowledged during the run (redelivered after --ack-wait)")
	f.publishTimeout = fs.Duration("publish-timeout", d.PublishTimeout.D(), "timeout of one publish; a publish that times out is indeterminate")
	f.publishRetries = fs.Int("publish-retries", d.PublishRetries, "retries of a publish that failed or timed out, with the same Nats-Msg-Id")
	f.dupeWindow = fs.Duration("duplicate-window", d.DuplicateWindow.D(), "the stream's duplicate (Nats-Msg-Id) window")
	f.stallBound = fs.Duration("stall-bound", d.StallBound.D(), "after the heal, a consumer with pending messages that delivers nothing for longer is stalled")
	f.drainTimeout = fs.Duration("drain-timeout", d.DrainTimeout.D(), "bound on the final drain of each consumer")
	return f
}

// expand makes one Options per combination of the list flags.
func (f *flags) expand(changed func(string) bool) ([]workloads.Settings, error) {
	var rates []float64
	for _, r := range f.rates {
		v, err := strconv.ParseFloat(r, 64)
		if err != nil {
			return nil, fmt.Errorf("--rate %q: want publishes/s, a number", r)
		}
		rates = append(rates, v)
	}
	var out []workloads.Settings
	for _, ret := range f.retentions {
		for _, ack := range f.acks {
			for _, p := range f.patterns {
				for _, rate := range rates {
					o := f.base()
					o.Retention, o.Ack, o.Pattern, o.Rate = Retention(ret), AckMode(ack), Pattern(p), rate
					if o.Retention == WorkQueue && !changed("consumers") {
						o.Consumers = 1
					}
					out = append(out, o)
				}
			}
		}
	}
	return out, nil
}

func (f *flags) base() Options {
	o := Defaults
	o.Producers, o.Consumers, o.Workers = *f.producers, *f.consumers, *f.workers
	o.Replicas, o.Batch, o.MaxDeliver = *f.replicas, *f.batch, *f.maxDeliver
	o.FetchWait, o.AckWait = Duration(*f.fetchWait), Duration(*f.ackWait)
	o.NakRate, o.SkipRate = *f.nakRate, *f.skipRate
	o.PublishTimeout, o.PublishRetries = Duration(*f.publishTimeout), *f.publishRetries
	o.DuplicateWindow, o.StallBound, o.DrainTimeout = Duration(*f.dupeWindow), Duration(*f.stallBound), Duration(*f.drainTimeout)
	return o
}

// Tags name what can set queue cells apart.
func (o Options) Tags() []record.Tag {
	return []record.Tag{
		{Name: "retention", Value: string(o.Retention)},
		{Name: "ack", Value: string(o.Ack)},
		{Name: "pattern", Value: string(o.Pattern)},
		{Name: "rate", Value: fmt.Sprint(o.Rate)},
	}
}
