package catchup

import (
	"reflect"
	"strings"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
)

// Flags are the workload's own flags of `chaos run --workload catchup`,
// beside those chaos run has for every workload (--direct-get,
// --server-version, --recovery-timeout, --keep-data), whose fields a caller
// sets only when given, or a preset's value is lost. --rate is bytes/s
// here, a size such as 40MB (kv-update's is ops/s).
type Flags struct {
	fs       *pflag.FlagSet
	o        Options
	preset   string
	backlogs bytesize.List
}

// BindFlags registers the flags on fs, with Defaults as defaults.
func BindFlags(fs *pflag.FlagSet) *Flags {
	f := &Flags{fs: fs, o: Defaults}
	fs.StringVar(&f.preset, "preset", "", "start from a named preset ("+strings.Join(PresetNames(), ", ")+"); flags given explicitly override it")
	fs.Var(&f.backlogs, "backlog", "payload bytes to fill the R3 stream with before a replica is wiped (4096, 4KiB, 512MiB, 6GB); a comma list makes one cell each, and the run fits the catching-up node's peak memory against them")
	bindOptions(fs, &f.o)
	return f
}

// bindOptions binds a flag to each field of o the flags set, with o's
// values as defaults.
func bindOptions(fs *pflag.FlagSet, o *Options) {
	fs.Var(&o.Rate, "rate", "payload bytes/s published while the replica is down and catching up, e.g. 40MB (0: none)")
	fs.Var(&o.Payload, "payload", "message payload size")
	fs.Var((*targetValue)(&o.Target), "target", "which replica is wiped and catches up: follower or leader")
	fs.DurationVar(&o.Down, "down", o.Down, "how long the wiped replica stays down while publishing goes on at --rate")
	fs.DurationVar(&o.WriteFor, "write-for", o.WriteFor, "how long publishing goes on after the restart (0: until the replica is current)")
	fs.Var(&o.MemoryLimit, "memory-limit", "hard memory limit of the catching-up node from its restart (0: none; needs the docker runtime)")
	fs.Var(&o.GoMemLimit, "gomemlimit", "GOMEMLIMIT of the nodes: auto (80% of --memory-limit, unset without one), off, or a size")
	fs.Var(&o.MaxOutstandingCatchup, "max-outstanding-catchup", "JetStream max_outstanding_catchup (0: the server default, 64MB)")
	fs.Var(&o.MaxCatchupMemory, "max-catchup-memory", "the catching-up node's peak RSS may not pass this (0: at most 3x, or 1GiB over, the other follower's peak, whichever is higher)")
	fs.Float64Var(&o.MaxMemorySlope, "max-memory-slope", DefaultMaxSlope, "with a --backlog list: the most the catching-up node's peak RSS may grow per byte of backlog")
	fs.DurationVar(&o.CatchupTimeout, "catchup-timeout", o.CatchupTimeout, "bound on the restart -> current wait")
	fs.DurationVar(&o.Settle, "settle", o.Settle, "how long to keep watching after the replica is current")
	fs.DurationVar(&o.VerifyTimeout, "verify-timeout", o.VerifyTimeout, "bound on reading the stream back")
	fs.IntVar(&o.CrashLoop, "crash-loop", o.CrashLoop, "restarts of one node by the runtime that make a crash loop and end the wait")
	fs.DurationVar(&o.SampleInterval, "sample-interval", o.SampleInterval, "memory sampling period, at most 250ms")
	fs.IntVar(&o.Publishers, "publishers", o.Publishers, "concurrent publishers, each its own connection")
	fs.IntVar(&o.Window, "window", o.Window, "unacknowledged publishes per publisher")
	fs.DurationVar(&o.PublishTimeout, "publish-timeout", o.PublishTimeout, "a publish not acknowledged by then is indeterminate")
	fs.Float64Var(&o.ReadRate, "read-rate", o.ReadRate, "gets/s by sequence through the catching-up node (0: none)")
}

// Options is the preset named by --preset (else Defaults) with every flag
// given explicitly on top. It does not validate: call Validate with the
// cluster size.
func (f *Flags) Options() (Options, error) {
	// Each flag given is copied onto out through the same flag bound to it
	// (before out is set: binding writes some defaults), by value, as a
	// size's String rounds (1234567 prints 1.18MiB).
	var out Options
	onto := pflag.NewFlagSet("", pflag.ContinueOnError)
	bindOptions(onto, &out)
	out = Defaults
	if f.preset != "" {
		p, err := Preset(f.preset)
		if err != nil {
			return Options{}, err
		}
		out = p
	}
	f.fs.Visit(func(given *pflag.Flag) {
		if fl := onto.Lookup(given.Name); fl != nil {
			reflect.ValueOf(fl.Value).Elem().Set(reflect.ValueOf(given.Value).Elem())
		}
	})
	if f.fs.Changed("backlog") && len(f.backlogs) > 0 {
		out.Backlog = f.backlogs[0]
	} else {
		f.backlogs = bytesize.List{out.Backlog}
	}
	// The bound flags now print what the cell runs with, the preset's
	// values among them: chaos run's rerun command pins every flag of the
	// workload at its printed value, and with the Defaults left there it
	// pinned --preset seed-loop to quick's --crash-loop, --rate and
	// --gomemlimit, another cell.
	f.o = out
	// No WithDefaults here: a zero given explicitly (--settle 0, --publishers
	// 0) is the user's value, which Validate accepts or refuses, never a
	// request for the default.
	return out, nil
}

// All is Options once per --backlog size given (one cell each).
func (f *Flags) All() ([]Options, error) {
	o, err := f.Options()
	if err != nil || !f.fs.Changed("backlog") {
		return []Options{o}, err
	}
	var out []Options
	for _, b := range f.backlogs {
		x := o
		x.Backlog = b
		out = append(out, x)
	}
	return out, nil
}

type targetValue Target

func (t *targetValue) String() string { return string(*t) }
func (t *targetValue) Type() string   { return "leader|follower" }
func (t *targetValue) Set(s string) error {
	*t = targetValue(s)
	return nil // Validate names the flag if it is neither
}
