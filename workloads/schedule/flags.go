package schedule

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// flags are the schedule workload's flags on `chaos run`.
type flags struct {
	retention                    []string
	replicas, clients, repeating *int
	ahead, pause, every          *time.Duration
	fireBound, fireGrace         *time.Duration
}

// bindFlags binds the flags on fs. --schedule-stream takes a list: each
// value is a cell.
func bindFlags(fs *pflag.FlagSet) *flags {
	d := Defaults
	f := &flags{}
	fs.StringSliceVar(&f.retention, "schedule-stream", []string{d.Retention},
		"limits (schedules and targets in one stream) or workqueue (schedules in a work-queue stream, targets read from a stream sourcing them: nats-server issue 8423) (list: cells)")
	f.replicas = fs.Int("replicas", d.Replicas, "stream replicas")
	f.clients = fs.Int("clients", d.Clients, "schedulers of one-shot schedules on each node, each on its own connection")
	f.ahead = fs.Duration("fire-ahead", d.Ahead, "how far ahead a one-shot schedule is due (@at), at least 1s")
	f.pause = fs.Duration("schedule-pause", d.Pause, "pause between one scheduler's creates")
	f.repeating = fs.Int("repeating", d.Repeating, "repeating schedules (@every, nats-server 2.14+), firing until the run's end; 0: none")
	f.every = fs.Duration("schedule-period", d.Every, "period of the repeating schedules, whole seconds, at least 1s")
	f.fireBound = fs.Duration("fire-bound", d.FireBound, "how late a schedule may fire when no fault window overlaps its due time")
	f.fireGrace = fs.Duration("fire-grace", d.FireGrace, "how late after a fault window a schedule due in or near it may fire")
	return f
}

// expand makes one Options per --schedule-stream value (Validate judges
// each value).
func (f *flags) expand(func(string) bool) ([]workloads.Settings, error) {
	var out []workloads.Settings
	for _, r := range f.retention {
		o := Defaults
		o.Retention = r
		o.Replicas, o.Clients, o.Repeating = *f.replicas, *f.clients, *f.repeating
		o.Ahead, o.Pause, o.Every = *f.ahead, *f.pause, *f.every
		o.FireBound, o.FireGrace = *f.fireBound, *f.fireGrace
		out = append(out, o)
	}
	return out, nil
}
