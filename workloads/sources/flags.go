package sources

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/workloads"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
)

// flags are the sources workload's flags on `chaos run`.
type flags struct {
	retentions, targets, transforms, repeats []string
	origins, producers, consumers, replicas  *int
	retries                                  *int
	rate                                     *float64
	copyBound, window, timeout               *time.Duration
}

// bindFlags binds the flags on fs. The four list flags make cells: one per
// combination of their values.
func bindFlags(fs *pflag.FlagSet) *flags {
	d := Defaults
	f := &flags{}
	fs.StringSliceVar(&f.retentions, "origin-retention", []string{string(Limits)}, "the origins' retention: limits or workqueue (a work-queue cell has no mirror) (list: cells)")
	fs.StringSliceVar(&f.targets, "fault-target", []string{string(TargetAny)}, "whose leader single-node faults hit: origin, mirror, sourced, or any node (list: cells)")
	fs.StringSliceVar(&f.transforms, "transform", []string{"off"}, "on: the sourced stream maps each origin's subjects under <stream>.all. (list: cells)")
	fs.StringSliceVar(&f.repeats, "repeat-ids", []string{"off"}, fmt.Sprintf("on: every %dth publish reuses an earlier Nats-Msg-Id once the %s duplicate window has passed (nats-server PR 8043) (list: cells)", RepeatEvery, repeatWindow))
	f.origins = fs.Int("origins", d.Origins, "origin streams, each sourced; the first is also mirrored")
	f.producers = fs.Int("producers", d.Producers, "producers per origin, spread over the nodes")
	f.consumers = fs.Int("consumers", d.Consumers, "durable pull consumers of the sourced stream, each reading all of it")
	f.replicas = fs.Int("replicas", d.Replicas, "replicas of every stream")
	f.rate = fs.Float64("rate", d.Rate, "publishes per second over every producer")
	f.copyBound = fs.Duration("copy-bound", d.CopyBound.D(), "how long after the heal a copy in contact with its origin may stay behind it at one sequence (a copy that hears nothing gets the server's longest retry backoff, 2m11s)")
	f.window = fs.Duration("duplicate-window", d.DupWindow.D(), "the streams' duplicate window (a --repeat-ids on cell uses its own short one)")
	f.timeout = fs.Duration("publish-timeout", d.PublishTimeout.D(), "timeout of one publish attempt")
	f.retries = fs.Int("publish-retries", d.PublishRetries, "retries of a publish under its Nats-Msg-Id")
	return f
}

// expand makes one Options per combination of the list flags' values.
func (f *flags) expand(func(string) bool) ([]workloads.Settings, error) {
	base := Defaults
	base.Origins, base.Producers, base.Consumers, base.Replicas = *f.origins, *f.producers, *f.consumers, *f.replicas
	base.Rate, base.CopyBound, base.DupWindow = *f.rate, queue.Duration(*f.copyBound), queue.Duration(*f.window)
	base.PublishTimeout, base.PublishRetries = queue.Duration(*f.timeout), *f.retries
	transforms, err := onOff("--transform", f.transforms)
	if err != nil {
		return nil, err
	}
	repeats, err := onOff("--repeat-ids", f.repeats)
	if err != nil {
		return nil, err
	}
	var out []workloads.Settings
	for _, r := range f.retentions {
		for _, t := range f.targets {
			for _, tr := range transforms {
				for _, rp := range repeats {
					o := base
					o.Retention, o.Target, o.Transform, o.RepeatIDs = Retention(r), Target(t), tr, rp
					out = append(out, o)
				}
			}
		}
	}
	return out, nil
}

func onOff(flag string, vals []string) ([]bool, error) {
	var out []bool
	for _, v := range vals {
		switch v {
		case "on":
			out = append(out, true)
		case "off":
			out = append(out, false)
		default:
			return nil, fmt.Errorf("%s %q: want on or off", flag, v)
		}
	}
	return out, nil
}
