package catchup

import (
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Flags binds the workload's own flags to a flag set, for `chaos run
// --workload catchup`. Flags chaos run already has for every workload are
// left to it: --direct-get (one cell each), --server-version (one cell
// each), --recovery-timeout, --keep-data and --rate (kv-update's is ops/s;
// here it is bytes/s, a size such as 40MB: bytesize.Parse reads it). Set those
// fields on the Options afterwards, and only when the flag was given, or a
// preset's value is lost.
type Flags struct {
	fs       *pflag.FlagSet
	o        Options
	preset   string
	backlogs bytesList
	copies   map[string]func(dst, src *Options)
}

// bytesList is a comma list of sizes.
type bytesList []bytesize.Bytes

func (l *bytesList) String() string {
	var parts []string
	for _, b := range *l {
		parts = append(parts, b.String())
	}
	return strings.Join(parts, ",")
}
func (l *bytesList) Type() string { return "sizes" }
func (l *bytesList) Set(s string) error {
	*l = (*l)[:0]
	for _, part := range strings.Split(s, ",") {
		b, err := bytesize.Parse(part)
		if err != nil {
			return err
		}
		*l = append(*l, b)
	}
	return nil
}

// BindFlags registers the flags on fs, with Defaults as defaults.
func BindFlags(fs *pflag.FlagSet) *Flags {
	f := &Flags{fs: fs, o: Defaults, copies: map[string]func(dst, src *Options){}}
	o := &f.o
	fs.StringVar(&f.preset, "preset", "", "start from a named preset ("+strings.Join(PresetNames(), ", ")+"); flags given explicitly override it")
	fs.Var(&f.backlogs, "backlog", "payload bytes to fill the R3 stream with before a replica is wiped (4096, 4KiB, 512MiB, 6GB); a comma list makes one cell each, and the run fits the catching-up node's peak memory against them")
	f.bytes("rate", &o.Rate, func(d, s *Options) { d.Rate = s.Rate }, "payload bytes/s published while the replica is down and catching up, e.g. 40MB (0: none)")
	f.bytes("payload", &o.Payload, func(d, s *Options) { d.Payload = s.Payload }, "message payload size")
	fs.Var((*targetValue)(&o.Target), "target", "which replica is wiped and catches up: follower or leader")
	f.copies["target"] = func(d, s *Options) { d.Target = s.Target }
	f.dur("down", &o.Down, func(d, s *Options) { d.Down = s.Down }, "how long the wiped replica stays down while publishing goes on at --rate")
	f.dur("write-for", &o.WriteFor, func(d, s *Options) { d.WriteFor = s.WriteFor }, "how long publishing goes on after the restart (0: until the replica is current)")
	f.bytes("memory-limit", &o.MemoryLimit, func(d, s *Options) { d.MemoryLimit = s.MemoryLimit }, "hard memory limit of the catching-up node from its restart (0: none; needs the docker runtime)")
	fs.Var(&o.GoMemLimit, "gomemlimit", "GOMEMLIMIT of the nodes: auto (80% of --memory-limit, unset without one), off, or a size")
	f.copies["gomemlimit"] = func(d, s *Options) { d.GoMemLimit = s.GoMemLimit }
	f.bytes("max-outstanding-catchup", &o.MaxOutstandingCatchup, func(d, s *Options) { d.MaxOutstandingCatchup = s.MaxOutstandingCatchup }, "JetStream max_outstanding_catchup (0: the server default, 64MB)")
	f.bytes("max-catchup-memory", &o.MaxCatchupMemory, func(d, s *Options) { d.MaxCatchupMemory = s.MaxCatchupMemory }, "the catching-up node's peak RSS may not pass this (0: at most 3x, or 1GiB over, the other follower's peak, whichever is higher)")
	fs.Float64Var(&o.MaxMemorySlope, "max-memory-slope", DefaultMaxSlope, "with a --backlog list: the most the catching-up node's peak RSS may grow per byte of backlog")
	f.copies["max-memory-slope"] = func(d, s *Options) { d.MaxMemorySlope = s.MaxMemorySlope }
	f.dur("catchup-timeout", &o.CatchupTimeout, func(d, s *Options) { d.CatchupTimeout = s.CatchupTimeout }, "bound on the restart -> current wait")
	f.dur("settle", &o.Settle, func(d, s *Options) { d.Settle = s.Settle }, "how long to keep watching after the replica is current")
	f.dur("verify-timeout", &o.VerifyTimeout, func(d, s *Options) { d.VerifyTimeout = s.VerifyTimeout }, "bound on reading the stream back")
	fs.IntVar(&o.CrashLoop, "crash-loop", o.CrashLoop, "restarts of one node by the runtime that make a crash loop and end the wait")
	f.copies["crash-loop"] = func(d, s *Options) { d.CrashLoop = s.CrashLoop }
	f.dur("sample-interval", &o.SampleInterval, func(d, s *Options) { d.SampleInterval = s.SampleInterval }, "memory sampling period, at most 250ms")
	fs.IntVar(&o.Publishers, "publishers", o.Publishers, "concurrent publishers, each its own connection")
	f.copies["publishers"] = func(d, s *Options) { d.Publishers = s.Publishers }
	fs.IntVar(&o.Window, "window", o.Window, "unacknowledged publishes per publisher")
	f.copies["window"] = func(d, s *Options) { d.Window = s.Window }
	f.dur("publish-timeout", &o.PublishTimeout, func(d, s *Options) { d.PublishTimeout = s.PublishTimeout }, "a publish not acknowledged by then is indeterminate")
	fs.Float64Var(&o.ReadRate, "read-rate", o.ReadRate, "gets/s by sequence through the catching-up node (0: none)")
	f.copies["read-rate"] = func(d, s *Options) { d.ReadRate = s.ReadRate }
	return f
}

func (f *Flags) bytes(name string, p *bytesize.Bytes, cp func(d, s *Options), usage string) {
	f.fs.Var(p, name, usage)
	f.copies[name] = cp
}

func (f *Flags) dur(name string, p *time.Duration, cp func(d, s *Options), usage string) {
	f.fs.DurationVar(p, name, *p, usage)
	f.copies[name] = cp
}

// Options is the preset named by --preset (else Defaults) with every flag
// given explicitly on top. It does not validate: call Validate with the
// cluster size.
func (f *Flags) Options() (Options, error) {
	out := Defaults
	if f.preset != "" {
		p, err := Preset(f.preset)
		if err != nil {
			return Options{}, err
		}
		out = p
	}
	for name, cp := range f.copies {
		if f.fs.Changed(name) {
			cp(&out, &f.o)
		}
	}
	if f.fs.Changed("backlog") && len(f.backlogs) > 0 {
		out.Backlog = f.backlogs[0]
	}
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
