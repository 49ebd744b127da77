package sources

import (
	"fmt"
	"strings"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/workloads/queue"
)

// Retention is the origins' retention policy.
type Retention string

// The origins' retentions.
const (
	Limits    Retention = "limits"    // messages stay; the mirror and the sourced stream copy them
	WorkQueue Retention = "workqueue" // the sourcing consumer takes them away (no mirror in such a cell)
)

// Target is the stream whose leader a cell's faults aim at.
type Target string

// The fault targets: a stream's leader, or any node.
const (
	TargetOrigin  Target = "origin"  // the first origin's leader
	TargetMirror  Target = "mirror"  // the mirror's leader
	TargetSourced Target = "sourced" // the sourcing stream's leader
	TargetAny     Target = "any"     // a random node (faults that aim by themselves aim at the first origin)
)

// Targets lists the fault targets for help and errors.
var Targets = []Target{TargetOrigin, TargetMirror, TargetSourced, TargetAny}

// Options are one sources cell's settings, as run.json records them.
type Options struct {
	// Stream is the base name: the origins are <Stream>_O1.., the mirror
	// <Stream>_MIRROR, the sourcing stream <Stream>_ALL.
	Stream    string    `json:"stream"`
	Origins   int       `json:"origins"`
	Retention Retention `json:"origin_retention"`
	// Transform: the sourced stream maps each origin's subjects under
	// <stream>.all. (SubjectTransforms on each source, 2.10+).
	Transform bool `json:"transform"`
	// RepeatIDs: some publishes reuse the Nats-Msg-Id of one of their
	// producer's earlier messages once the origin's DupWindow has passed
	// three times over (nats-server PR 8043's case), with that short window.
	RepeatIDs bool           `json:"repeat_ids"`
	DupWindow queue.Duration `json:"dup_window"`
	Target    Target         `json:"fault_target"`
	Producers int            `json:"producers"` // per origin
	Rate      float64        `json:"rate"`      // publishes/s over every producer
	Consumers int            `json:"consumers"` // durable consumers of the sourced stream
	Replicas  int            `json:"replicas"`
	// CopyBound is how long after the last heal the mirror and the
	// sourced stream may take to copy everything the origins hold.
	CopyBound      queue.Duration `json:"copy_bound"`
	PublishTimeout queue.Duration `json:"publish_timeout"`
	PublishRetries int            `json:"publish_retries"`
	Seed           uint64         `json:"seed"`
}

// Defaults are a cell's settings when no flag changes them.
var Defaults = Options{Stream: "SRC", Origins: 2, Retention: Limits, DupWindow: queue.Duration(2 * time.Minute), Target: TargetAny,
	Producers: 2, Rate: 200, Consumers: 2, Replicas: 3, CopyBound: queue.Duration(30 * time.Second),
	PublishTimeout: queue.Duration(2 * time.Second), PublishRetries: 5}

// repeatWindow is the origins' duplicate window in a cell that repeats
// ids: short, so repeats come often (the server's minimum is 100ms).
const repeatWindow = time.Second

// Origin is the name of origin n (1-based).
func (o Options) Origin(n int) string { return fmt.Sprintf("%s_O%d", o.Stream, n) }

// OriginNames lists the origins.
func (o Options) OriginNames() []string {
	out := make([]string, o.Origins)
	for i := range out {
		out[i] = o.Origin(i + 1)
	}
	return out
}

// Mirror is the mirror's name, or "" when the cell has none: a work-queue
// origin gives each message to one sourcing consumer before 2.14, so a
// mirror beside the sourced stream would split it.
func (o Options) Mirror() string {
	if o.Retention == WorkQueue {
		return ""
	}
	return o.Stream + "_MIRROR"
}

// Sourced is the name of the stream that sources every origin.
func (o Options) Sourced() string { return o.Stream + "_ALL" }

// prefix is the subjects' first token: the base name in lower case.
func (o Options) prefix() string { return strings.ToLower(o.Stream) }

// OriginSubjects are origin n's subjects ("src.o1.>").
func (o Options) OriginSubjects(n int) string { return fmt.Sprintf("%s.o%d.>", o.prefix(), n) }

// SourcedSubject is the subject a message published to subject has in the
// sourced stream: the same, or under <prefix>.all. with the transform.
func (o Options) SourcedSubject(subject string) string {
	if !o.Transform {
		return subject
	}
	return o.prefix() + ".all." + strings.TrimPrefix(subject, o.prefix()+".")
}

// ProducerSubject is producer k's subject on its origin.
func (o Options) ProducerSubject(k int) string {
	return fmt.Sprintf("%s.o%d.%s", o.prefix(), o.OriginOf(k), queue.ProducerID(k))
}

// OriginOf is the origin (1-based) producer k publishes to.
func (o Options) OriginOf(k int) int { return k/o.Producers + 1 }

// consumerOptions are the queue workload's consumer side on the sourced
// stream: durable pull consumers with AckSync, naks and skips, as the
// queue workload's defaults.
func (o Options) consumerOptions() queue.Options {
	q := queue.Defaults
	q.Stream, q.Producers, q.Consumers, q.Replicas, q.Seed = o.Sourced(), 0, o.Consumers, o.Replicas, o.Seed
	q.DuplicateWindow = o.Window()
	return q
}

// Window is every stream's duplicate window (the mirror's is the
// server's: a clustered mirror has none). The sourced stream's is set
// explicitly: from 2.14 a stream with sources gets none by default
// (nats-server stream.go, setStreamConfigDefaults), while it deduplicates
// the origins' Nats-Msg-Ids within it (processInboundSourceMsg keeps the
// header).
func (o Options) Window() queue.Duration {
	if o.RepeatIDs {
		return queue.Duration(repeatWindow)
	}
	return o.DupWindow
}

// Validate returns a one-line usage error for the first bad value.
func (o Options) Validate(nodes int) error {
	switch {
	case o.Stream == "" || strings.ContainsAny(o.Stream, ".*> \t"):
		return fmt.Errorf("stream name %q is empty or holds . * > or spaces", o.Stream)
	case o.Origins < 1 || o.Origins > 16:
		return fmt.Errorf("--origins must be 1..16, got %d", o.Origins)
	case o.Retention != Limits && o.Retention != WorkQueue:
		return fmt.Errorf("--origin-retention %q: want limits or workqueue", o.Retention)
	case !validTarget(o.Target):
		return fmt.Errorf("--fault-target %q: want one of %v", o.Target, Targets)
	case o.Target == TargetMirror && o.Mirror() == "":
		return fmt.Errorf("--fault-target mirror: a cell with --origin-retention workqueue has no mirror (a work-queue origin gives each message to one sourcing consumer before 2.14)")
	case o.Producers < 1:
		return fmt.Errorf("--producers must be at least 1, got %d", o.Producers)
	case o.Rate <= 0:
		return fmt.Errorf("--rate must be above 0, got %g", o.Rate)
	case o.Consumers < 1 || o.Consumers > 16:
		return fmt.Errorf("--consumers must be 1..16, got %d", o.Consumers)
	case o.Replicas < 1 || o.Replicas > nodes:
		return fmt.Errorf("--replicas must be 1..%d (the cluster size), got %d", nodes, o.Replicas)
	case o.CopyBound.D() <= 0:
		return fmt.Errorf("--copy-bound must be above 0, got %s", o.CopyBound.D())
	case o.DupWindow.D() < 100*time.Millisecond:
		return fmt.Errorf("--duplicate-window %s is below the server's minimum of 100ms", o.DupWindow.D())
	case o.PublishTimeout.D() < 10*time.Millisecond:
		return fmt.Errorf("--publish-timeout %s is too short", o.PublishTimeout.D())
	case o.PublishRetries < 0:
		return fmt.Errorf("--publish-retries must not be negative, got %d", o.PublishRetries)
	}
	return nil
}

func validTarget(t Target) bool {
	for _, x := range Targets {
		if t == x {
			return true
		}
	}
	return false
}

// ConsumerNames are the durable consumers of the sourced stream.
func (o Options) ConsumerNames() []string { return o.consumerOptions().ConsumerNames() }
