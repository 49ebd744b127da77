package catchup

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// Target is which replica is taken down and made to catch up.
type Target string

const (
	// Follower: a follower of the stream, not the meta leader when there is
	// a choice (killing the meta leader adds an election that is not the
	// subject here). The report's case.
	Follower Target = "follower"
	// Leader: the stream leader, which comes back as a follower that must
	// catch up.
	Leader Target = "leader"
)

// Options is one catch-up cell. Every field is a flag of `chaos run
// --workload catchup`; the json names are what results.json records.
type Options struct {
	Stream string `json:"stream"` // stream name (not a flag)

	// Phase 1: the backlog the replica must catch up.
	Backlog bytesize.Bytes `json:"backlog"` // --backlog: payload bytes to fill the R3 stream with
	Payload bytesize.Bytes `json:"payload"` // --payload: message payload size

	// Phases 2-4.
	Target   Target         `json:"target"`    // --target leader|follower
	Rate     bytesize.Bytes `json:"rate"`      // --rate: payload bytes/s published while the replica is down and catching up (0: none)
	Down     time.Duration  `json:"down"`      // --down: how long the wiped replica stays down, publishing at --rate
	WriteFor time.Duration  `json:"write_for"` // --write-for: how long publishing continues after the restart; 0: until the replica is current

	// The server under test.
	MemoryLimit           bytesize.Bytes     `json:"memory_limit"`               // --memory-limit: hard limit of the catching-up node from its restart (0: none)
	GoMemLimit            cluster.GoMemLimit `json:"gomemlimit"`                 // --gomemlimit auto|off|SIZE; see GoMemLimit
	MaxOutstandingCatchup bytesize.Bytes     `json:"max_outstanding_catchup"`    // --max-outstanding-catchup (0: server default, 64 MB)
	MaxMemorySlope        float64            `json:"max_memory_slope,omitempty"` // --max-memory-slope: bytes of peak RSS per byte of backlog a --backlog list may show (0: DefaultMaxSlope)
	MaxCatchupMemory      bytesize.Bytes     `json:"max_catchup_memory"`         // --max-catchup-memory: the catching-up node's peak RSS may not pass it (0: relative to the other follower; see DefaultJumpFactor)
	DirectGet             bool               `json:"direct_get"`                 // --direct-get: allow_direct on the stream (one cell each)

	// Bounds and observation.
	CatchupTimeout  time.Duration `json:"catchup_timeout"`  // --catchup-timeout: bound on restart -> current
	Settle          time.Duration `json:"settle"`           // --settle: keep watching after the replica is current (the jump may come after)
	RecoveryTimeout time.Duration `json:"recovery_timeout"` // --recovery-timeout: bound on the heal
	VerifyTimeout   time.Duration `json:"verify_timeout"`   // --verify-timeout: bound on reading the stream back
	CrashLoop       int           `json:"crash_loop"`       // --crash-loop: restarts of one node nobody asked for that make a crash loop (and stop the wait)
	SampleInterval  time.Duration `json:"sample_interval"`  // --sample-interval: memory sampling period (at most 250ms)

	// Clients.
	Publishers     int           `json:"publishers"`      // --publishers: concurrent publishers (each its own connection and id sequence)
	Window         int           `json:"window"`          // --window: unacknowledged publishes per publisher
	PublishTimeout time.Duration `json:"publish_timeout"` // --publish-timeout: a publish not acknowledged by then is indeterminate
	ReadRate       float64       `json:"read_rate"`       // --read-rate: gets/s by sequence through the catching-up node (0: none)

	Preset string `json:"preset,omitempty"` // the preset these options started from
}

// Defaults are sized for a quick look on a small machine (2 cores shared
// with others): a 1 GiB backlog fills in 10-30 s and catches up in about
// 10 s, and a cell takes under a minute. Presets hold the report's scale.
var Defaults = Options{
	Stream:          "CATCHUP",
	Backlog:         1 << 30,
	Payload:         4 << 10,
	Target:          Follower,
	Rate:            4 << 20,
	Down:            5 * time.Second,
	WriteFor:        0,
	GoMemLimit:      cluster.GoMemLimitAuto,
	CatchupTimeout:  2 * time.Minute,
	Settle:          5 * time.Second,
	RecoveryTimeout: 2 * time.Minute,
	VerifyTimeout:   2 * time.Minute,
	CrashLoop:       2,
	SampleInterval:  250 * time.Millisecond,
	Publishers:      2,
	Window:          256,
	PublishTimeout:  5 * time.Second,
	ReadRate:        20,
}

// Presets are named starting points for --preset; flags given explicitly
// override them.
var Presets = map[string]Options{
	"quick": Defaults,
	// seed-oom is the report's scenario at a scale known to show the effect
	// (measured by hand: the catching-up node's peak ranged from ~0.4 GB to
	// 6.6 GB across versions, healthy nodes stayed under 0.5 GB): a 6 GB
	// stream of 4 KiB messages, the replica down 5 s, 40 MB/s of writes for
	// 120 s after its restart, under a 1.5 GiB limit with GOMEMLIMIT at 80 %.
	// About 4 minutes and 30 GB of disk per cell.
	"seed-oom": with(Defaults, func(o *Options) {
		o.Backlog, o.Payload = 6_000_000_000, 4<<10
		o.Down, o.Rate, o.WriteFor = 5*time.Second, 40_000_000, 120*time.Second
		o.MemoryLimit = 1536 << 20
		o.CrashLoop = 3 // a few kills, with times, before giving up the wait
		o.CatchupTimeout, o.Settle = 10*time.Minute, 15*time.Second
		o.RecoveryTimeout, o.VerifyTimeout = 10*time.Minute, 10*time.Minute
		o.Publishers, o.ReadRate = 4, 20
	}),
	// seed-loop shows the report's crash loop in under a minute a cell on
	// the pinned release: GOMEMLIMIT unset, as in the user's first report,
	// a 1 GiB backlog at 5 MB/s under a 384 MiB limit. A kill during the
	// catch-up keeps what the node stored (it comes back holding more each
	// time), so each OOM kill costs the loop a share of the stream, the
	// limit over v2.15.3's need (1.15-1.8x what it caught up), and three
	// kills need three shares: at 512 MiB one machine looped in 10 runs of
	// 10 and another in none of 5 (two kills, then the catch-up fit). At
	// 1 GiB the third kill left 43,000-102,000 of 268,000 messages to go in
	// 10 runs of 10, and the limit stays above what v2.11.8 and v2.10.7
	// need at this backlog (no OOM kill in 10 runs each, at most 0.29x the
	// stream). The README ("The catchup workload") has the table.
	"seed-loop": seedLoop,
	// seed-loop-2gib was seed-loop until 2026-12-05: the same crash loop at
	// four times the scale, where the window between the two sides is wider.
	// A 1 GiB limit placed by measurement between the catch-up's own peak on
	// v2.15.3 (2.34-2.45 GiB for this 2 GiB backlog) and what v2.11.8 and
	// v2.10.7 need (588-622 MiB; the other follower ~90 MiB). Measured 5
	// crash loops in 5 runs on v2.15.3 (3 OOM kills each, the first 11-59 s
	// after the restart, 2.5-5 minutes a run), none on v2.11.8 or v2.10.7.
	// The loop needs the docker runtime's tmpfs copy of the server
	// (cluster/docker text.go): without it 2 runs of 2 stalled at the
	// limit and gave one OOM kill in 3 minutes.
	"seed-loop-2gib": with(seedLoop, func(o *Options) {
		o.Backlog, o.Rate, o.MemoryLimit = 2<<30, 20_000_000, 1<<30
	}),
	// seed-scale is seed-oom without a memory limit: how much a catch-up
	// really takes, as the hand measurement did.
	"seed-scale": with(Defaults, func(o *Options) {
		o.Backlog, o.Payload = 6_000_000_000, 4<<10
		o.Down, o.Rate, o.WriteFor = 5*time.Second, 40_000_000, 120*time.Second
		o.CatchupTimeout, o.Settle = 10*time.Minute, 15*time.Second
		o.RecoveryTimeout, o.VerifyTimeout = 10*time.Minute, 10*time.Minute
		o.Publishers, o.ReadRate = 4, 20
	}),
}

// seedLoop is the seed-loop preset; seed-loop-2gib scales it.
var seedLoop = with(Defaults, func(o *Options) {
	o.Backlog, o.Payload = 1<<30, 4<<10
	o.Down, o.Rate = 5*time.Second, 5_000_000
	o.MemoryLimit, o.GoMemLimit = 384<<20, cluster.GoMemLimitOff
	o.CrashLoop = 3
	o.CatchupTimeout, o.Settle = 3*time.Minute, 10*time.Second
	o.RecoveryTimeout, o.VerifyTimeout = time.Minute, 2*time.Minute
	o.Publishers = 4
})

func with(o Options, f func(*Options)) Options {
	f(&o)
	return o
}

// Preset returns a preset's options with Preset set, or a one-line error
// naming the presets there are.
func Preset(name string) (Options, error) {
	o, ok := Presets[name]
	if !ok {
		return Options{}, fmt.Errorf("--preset %q: want one of %s", name, strings.Join(PresetNames(), ", "))
	}
	o.Preset = name
	return o, nil
}

// PresetNames lists the presets, sorted.
func PresetNames() []string { return slices.Sorted(maps.Keys(Presets)) }

// WithDefaults fills unset fields from Defaults, but for those where zero
// means something (Rate, WriteFor, MemoryLimit, MaxOutstandingCatchup,
// ReadRate).
func (o Options) WithDefaults() Options {
	d := Defaults
	o.Stream = cmp.Or(o.Stream, d.Stream)
	o.Backlog = cmp.Or(o.Backlog, d.Backlog)
	o.Payload = cmp.Or(o.Payload, d.Payload)
	o.Target = cmp.Or(o.Target, d.Target)
	o.CatchupTimeout = cmp.Or(o.CatchupTimeout, d.CatchupTimeout)
	o.Settle = cmp.Or(o.Settle, d.Settle)
	o.RecoveryTimeout = cmp.Or(o.RecoveryTimeout, d.RecoveryTimeout)
	o.VerifyTimeout = cmp.Or(o.VerifyTimeout, d.VerifyTimeout)
	o.CrashLoop = cmp.Or(o.CrashLoop, d.CrashLoop)
	o.SampleInterval = cmp.Or(o.SampleInterval, d.SampleInterval)
	o.Publishers = cmp.Or(o.Publishers, d.Publishers)
	o.Window = cmp.Or(o.Window, d.Window)
	o.PublishTimeout = cmp.Or(o.PublishTimeout, d.PublishTimeout)
	return o
}

// The largest payload: nats-server's default max_payload is 1 MiB, and the
// id header takes a few bytes of it.
const maxPayload = 1<<20 - 1024

const minPayload = 1 // the id travels in a header

// Validate returns a one-line error naming the flag of the first bad field.
func (o Options) Validate(nodes int) error {
	switch {
	case nodes < 3:
		return fmt.Errorf("the catchup workload needs a cluster of at least 3 nodes for an R3 stream, got %d", nodes)
	case o.Stream == "" || strings.ContainsAny(o.Stream, ".*> \t"):
		return fmt.Errorf("stream name %q is empty or holds . * > or spaces", o.Stream)
	case o.Payload < minPayload || o.Payload > maxPayload:
		return fmt.Errorf("--payload %s: want 1B..%s (the server's max_payload is 1MiB)", o.Payload, bytesize.Bytes(maxPayload))
	case o.Backlog < o.Payload:
		return fmt.Errorf("--backlog %s is smaller than one --payload (%s)", o.Backlog, o.Payload)
	case o.Target != Leader && o.Target != Follower:
		return fmt.Errorf("--target %q: want leader or follower", o.Target)
	case o.Rate < 0:
		return fmt.Errorf("--rate must not be negative")
	case o.Rate > 0 && o.Rate < o.Payload:
		return fmt.Errorf("--rate %s/s is below one --payload (%s) a second", o.Rate, o.Payload)
	case o.Down < 0:
		return fmt.Errorf("--down must not be negative")
	case o.WriteFor < 0:
		return fmt.Errorf("--write-for must not be negative (0 publishes until the replica is current)")
	case o.MemoryLimit < 0:
		return fmt.Errorf("--memory-limit must not be negative")
	case o.MemoryLimit > 0 && o.MemoryLimit < 32<<20:
		return fmt.Errorf("--memory-limit %s is below 32MiB; nats-server cannot start", o.MemoryLimit)
	case o.GoMemLimit > 0 && o.MemoryLimit > 0 && int64(o.GoMemLimit) >= int64(o.MemoryLimit):
		return fmt.Errorf("--gomemlimit %s is not below --memory-limit %s: the Go runtime would never hold back before the kill", o.GoMemLimit, o.MemoryLimit)
	case o.MaxOutstandingCatchup < 0:
		return fmt.Errorf("--max-outstanding-catchup must not be negative")
	case o.MaxOutstandingCatchup > 0 && o.MaxOutstandingCatchup < o.Payload:
		return fmt.Errorf("--max-outstanding-catchup %s is below one --payload (%s): catch-up could not send a message", o.MaxOutstandingCatchup, o.Payload)
	case o.CatchupTimeout < time.Second:
		return fmt.Errorf("--catchup-timeout %s is below 1s", o.CatchupTimeout)
	case o.Settle < 0:
		return fmt.Errorf("--settle must not be negative")
	case o.MaxMemorySlope < 0:
		return fmt.Errorf("--max-memory-slope %g must not be negative", o.MaxMemorySlope)
	case o.RecoveryTimeout < time.Second:
		return fmt.Errorf("--recovery-timeout %s is below 1s", o.RecoveryTimeout)
	case o.VerifyTimeout < time.Second:
		return fmt.Errorf("--verify-timeout %s is below 1s", o.VerifyTimeout)
	case o.CrashLoop < 1:
		return fmt.Errorf("--crash-loop must be at least 1 restart, got %d", o.CrashLoop)
	case o.SampleInterval < 10*time.Millisecond || o.SampleInterval > 250*time.Millisecond:
		return fmt.Errorf("--sample-interval %s: want 10ms..250ms (at least 4 samples a second)", o.SampleInterval)
	case o.Publishers < 1 || o.Publishers > 64:
		return fmt.Errorf("--publishers must be 1..64, got %d", o.Publishers)
	case o.Window < 1 || o.Window > 100_000:
		return fmt.Errorf("--window must be 1..100000, got %d", o.Window)
	case o.PublishTimeout < 100*time.Millisecond:
		return fmt.Errorf("--publish-timeout %s is below 100ms", o.PublishTimeout)
	case o.ReadRate < 0:
		return fmt.Errorf("--read-rate must not be negative")
	}
	return nil
}

// GoMemLimitBytes is the GOMEMLIMIT the policy gives (0: unset).
func (o Options) GoMemLimitBytes() int64 { return o.GoMemLimit.Bytes(int64(o.MemoryLimit)) }

// ClusterConfig is the config a cell starts its cluster with, from the
// run's template base. No node gets a hard limit: SetMemoryLimit puts it
// on the target between its kill and its restart, and the healthy nodes
// are the baseline. GOMEMLIMIT is fixed when a node is created, for every
// node alike, so all get the policy's value (or none); healthy nodes stay
// far below it. AutoRestart is on, so a crash loop shows as restarts, as on
// Kubernetes; stores stay off tmpfs, which would count against memory.
func (o Options) ClusterConfig(base cluster.Config) cluster.Config {
	base.MemoryLimit = 0
	base.MaxMemoryStore = 0 // WithDefaults would derive it from a MemoryLimit we no longer set
	base.GoMemLimit = cluster.GoMemLimitOff
	if g := o.GoMemLimitBytes(); g > 0 {
		base.GoMemLimit = cluster.GoMemLimit(g)
	}
	base.MaxOutstandingCatchup = int64(o.MaxOutstandingCatchup)
	base.AutoRestart = true
	base.StoreOnTmpfs = false
	if base.Nodes == 0 {
		base.Nodes = 3
	}
	return base
}

// Refuse says why a runtime cannot meet these options' Plan (a memory
// limit needs one that sets it), or nil.
func (o Options) Refuse(supports func(cluster.Capability) error) error {
	return workloads.Refuse(Name, o.Plan(cluster.Config{}).Needs, supports)
}

// Describe is the options in one line, for the terminal.
func (o Options) Describe() string {
	writes, limit, gml := "no writes after the fill", "no memory limit", "GOMEMLIMIT unset"
	switch {
	case o.Rate > 0 && o.WriteFor > 0:
		writes = fmt.Sprintf("writes %s/s for %s after the restart", o.Rate, o.WriteFor)
	case o.Rate > 0:
		writes = fmt.Sprintf("writes %s/s until current", o.Rate)
	}
	if o.MemoryLimit > 0 {
		limit = fmt.Sprintf("memory limit %s on the target", o.MemoryLimit)
	}
	if g := o.GoMemLimitBytes(); g > 0 {
		gml = "GOMEMLIMIT " + bytesize.Bytes(g).String()
	}
	parts := []string{fmt.Sprintf("backlog %s of %s messages", o.Backlog, o.Payload), "target " + string(o.Target), "down " + o.Down.String(), writes, limit, gml}
	if o.MaxOutstandingCatchup > 0 {
		parts = append(parts, "max_outstanding_catchup "+o.MaxOutstandingCatchup.String())
	}
	return strings.Join(append(parts, "Direct Get "+record.OnOff(o.DirectGet)), ", ")
}
