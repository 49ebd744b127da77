package queue

import (
	"fmt"
	"strings"
	"time"
)

// Retention is the stream's retention policy.
type Retention string

const (
	Limits    Retention = "limits"    // messages stay until limits remove them (none are set)
	WorkQueue Retention = "workqueue" // a message is removed once acknowledged
	Interest  Retention = "interest"  // a message is removed once every consumer acknowledged it
)

// Retentions lists the valid retentions for help and errors.
var Retentions = []Retention{Limits, WorkQueue, Interest}

// AckMode is how a pull worker acknowledges a delivery.
type AckMode string

const (
	// FireAndForget is msg.Ack(): published, no reply; the server may never
	// get it, so a later redelivery is allowed.
	FireAndForget AckMode = "fire-and-forget"
	// Sync is msg.DoubleAck (AckSync): the server replies once the ack is
	// applied, so a redelivery after the reply is a duplicate.
	Sync AckMode = "sync"
)

// AckModes lists the valid ack modes.
var AckModes = []AckMode{FireAndForget, Sync}

// Pattern is how messages are consumed.
type Pattern string

const (
	// Pull: durable pull consumers with explicit ack, each read by several
	// workers spread over the nodes.
	Pull Pattern = "pull"
	// Ordered: ordered push consumers (nats.go's OrderedConsumer
	// subscription: ephemeral, no acks, recreated on a gap).
	Ordered Pattern = "ordered"
)

// Patterns lists the valid consumer patterns.
var Patterns = []Pattern{Pull, Ordered}

// StreamName is the stream the workload creates unless the run names it
// (Options.Stream); its producers publish to its name in lower case, a
// dot and their id ("queue.p3" for producer 3).
const StreamName = "QUEUE"

// Options is one queue cell's settings. It is stored in run.json,
// results.json and the cell's queue.json (the checkers' copy).
type Options struct {
	// Stream is the stream's name (not a flag): StreamName unless the run
	// names it (--runtime external, Named); empty in cells stored before.
	Stream     string    `json:"stream,omitempty"`
	Producers  int       `json:"producers"`
	Consumers  int       `json:"consumers"`
	Workers    int       `json:"workers"` // pull workers per consumer
	Retention  Retention `json:"retention"`
	Pattern    Pattern   `json:"consumer_pattern"`
	Ack        AckMode   `json:"ack"`
	Replicas   int       `json:"replicas"`
	Rate       float64   `json:"rate,omitempty"` // publishes/s over all producers; 0 = as fast as they go
	Batch      int       `json:"batch"`
	FetchWait  Duration  `json:"fetch_wait"`
	AckWait    Duration  `json:"ack_wait"`
	MaxDeliver int       `json:"max_deliver"` // -1: unlimited
	// NakRate and SkipRate are the fractions of run deliveries that are
	// naked or left unacknowledged (to exercise nak and ack-wait
	// redelivery). The final drain acknowledges everything.
	NakRate         float64  `json:"nak_rate"`
	SkipRate        float64  `json:"skip_rate"`
	PublishTimeout  Duration `json:"publish_timeout"`
	PublishRetries  int      `json:"publish_retries"`
	DuplicateWindow Duration `json:"duplicate_window"`
	StallBound      Duration `json:"stall_bound"`
	DrainTimeout    Duration `json:"drain_timeout"`
	DirectGet       bool     `json:"direct_get"`
	Seed            uint64   `json:"seed"`
}

// Duration is a time.Duration that reads and writes as "5s" in JSON.
type Duration time.Duration

func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// maxConsumers bounds --consumers: the checkers keep one bit per consumer.
const maxConsumers = 64

// Defaults are the flags' defaults.
var Defaults = Options{
	Producers: 3, Consumers: 2, Workers: 3, Retention: Limits, Pattern: Pull, Ack: Sync, Replicas: 3,
	Rate: 300, Batch: 10, FetchWait: Duration(time.Second), AckWait: Duration(5 * time.Second), MaxDeliver: -1,
	NakRate: 0.02, SkipRate: 0.01, PublishTimeout: Duration(2 * time.Second), PublishRetries: 5,
	DuplicateWindow: Duration(2 * time.Minute), StallBound: Duration(20 * time.Second),
	DrainTimeout: Duration(60 * time.Second),
}

// Validate returns a one-line usage error for the first bad value.
func (o Options) Validate(nodes int) error {
	if strings.ContainsAny(o.Stream, ".*> \t") {
		return fmt.Errorf("stream name %q holds . * > or spaces", o.Stream)
	}
	if err := oneOf("--retention", o.Retention, Retentions); err != nil {
		return err
	}
	if err := oneOf("--consumer-pattern", o.Pattern, Patterns); err != nil {
		return err
	}
	if err := oneOf("--ack", o.Ack, AckModes); err != nil {
		return err
	}
	switch {
	case o.Producers < 1:
		return fmt.Errorf("--producers must be at least 1, got %d", o.Producers)
	case o.Consumers < 1 || o.Consumers > maxConsumers:
		return fmt.Errorf("--consumers must be 1..%d, got %d", maxConsumers, o.Consumers)
	case o.Workers < 1:
		return fmt.Errorf("--workers must be at least 1, got %d", o.Workers)
	case o.Replicas < 1 || o.Replicas > nodes:
		return fmt.Errorf("--replicas must be 1..%d (the cluster size), got %d", nodes, o.Replicas)
	case o.Retention == WorkQueue && o.Consumers != 1:
		return fmt.Errorf("--retention workqueue takes --consumers 1 (a work-queue stream allows one unfiltered consumer), got %d", o.Consumers)
	case o.Pattern == Ordered && o.Retention != Limits:
		return fmt.Errorf("--consumer-pattern ordered needs --retention limits (ordered consumers do not ack, so %s retention would never keep or remove messages as tested)", o.Retention)
	case o.Rate < 0:
		return fmt.Errorf("--rate must not be negative, got %g", o.Rate)
	case o.Batch < 1:
		return fmt.Errorf("--batch must be at least 1, got %d", o.Batch)
	case o.FetchWait.D() < 100*time.Millisecond:
		return fmt.Errorf("--fetch-wait %s is below 100ms", o.FetchWait.D())
	case o.AckWait.D() < time.Second:
		return fmt.Errorf("--ack-wait %s is below 1s", o.AckWait.D())
	case o.MaxDeliver == 0 || o.MaxDeliver < -1:
		return fmt.Errorf("--max-deliver must be -1 (unlimited) or at least 1, got %d", o.MaxDeliver)
	case o.NakRate < 0 || o.NakRate >= 1 || o.SkipRate < 0 || o.SkipRate >= 1 || o.NakRate+o.SkipRate >= 1:
		return fmt.Errorf("--nak-rate %g and --skip-rate %g must be fractions in [0,1) that sum below 1", o.NakRate, o.SkipRate)
	case o.PublishTimeout.D() < 10*time.Millisecond:
		return fmt.Errorf("--publish-timeout %s is too short", o.PublishTimeout.D())
	case o.PublishRetries < 0:
		return fmt.Errorf("--publish-retries must not be negative, got %d", o.PublishRetries)
	case o.DuplicateWindow.D() < 100*time.Millisecond:
		return fmt.Errorf("--duplicate-window %s is below the server's minimum of 100ms", o.DuplicateWindow.D())
	case o.StallBound.D() <= o.AckWait.D():
		return fmt.Errorf("--stall-bound %s must exceed --ack-wait %s: a lost ack is only redelivered after the ack wait", o.StallBound.D(), o.AckWait.D())
	case o.DrainTimeout.D() < o.StallBound.D():
		return fmt.Errorf("--drain-timeout %s must be at least --stall-bound %s", o.DrainTimeout.D(), o.StallBound.D())
	}
	return nil
}

func oneOf[T ~string](flag string, v T, valid []T) error {
	for _, x := range valid {
		if v == x {
			return nil
		}
	}
	return fmt.Errorf("%s %q: want one of %v", flag, v, valid)
}

// ConsumerNames are the consumers of a cell: durable names for pull,
// labels of the ordered subscriptions otherwise.
func (o Options) ConsumerNames() []string {
	out := make([]string, o.Consumers)
	for i := range out {
		if o.Pattern == Ordered {
			out[i] = fmt.Sprintf("o%d", i)
		} else {
			out[i] = fmt.Sprintf("c%d", i)
		}
	}
	return out
}

// ProducerID names producer i; its subject is the stream's subject prefix + id and its
// values are id-1, id-2, ...
func ProducerID(i int) string { return fmt.Sprintf("p%d", i) }

// stream is the stream the cell creates.
func (o Options) stream() string {
	if o.Stream == "" {
		return StreamName
	}
	return o.Stream
}

// subjectPrefix is what the producers' subjects start with: the stream's
// name in lower case and a dot.
func (o Options) subjectPrefix() string { return strings.ToLower(o.stream()) + "." }

// StreamAndSubjects are the stream the cell creates and its subjects
// ("QUEUE", "queue.>"), as a finding names them.
func (o Options) StreamAndSubjects() (stream, subjects string) {
	return o.stream(), o.subjectPrefix() + ">"
}
