// Package kvupdate is the seed's workload: clients that read a key and then
// update it with the revision they read, on an R3 KV bucket.
package kvupdate

import (
	"fmt"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
)

// Pattern is how clients choose keys and writes.
type Pattern string

const (
	// SingleWriter gives each key one writer that loops get, then
	// Update(value, revision from the get): the seed's pattern.
	SingleWriter Pattern = "single-writer"
	// Contended lets every client get-then-update any key.
	Contended Pattern = "contended"
	// BlindPut writes with Put and no expected revision, then reads back.
	BlindPut Pattern = "blind-put"
)

// Patterns lists the valid patterns for help and errors.
var Patterns = []Pattern{SingleWriter, Contended, BlindPut}

// Options sets up one kv-update cell.
type Options struct {
	Bucket    string        `json:"bucket"`
	Keys      int           `json:"keys"`
	Clients   int           `json:"clients"`
	Pattern   Pattern       `json:"pattern"`
	Replicas  int           `json:"replicas"`
	DirectGet bool          `json:"direct_get"`
	Rate      float64       `json:"rate,omitempty"` // ops/s over all clients; 0 = as fast as they go
	OpTimeout time.Duration `json:"op_timeout"`
	// ConvergeTimeout bounds reading the replicas again while they differ.
	ConvergeTimeout time.Duration `json:"converge_timeout,omitempty"`
	Seed            uint64        `json:"seed"`
	// History is the bucket's history per key; a setting stored before
	// --history existed decodes as KeepAll, which those runs used.
	History   History `json:"history"`
	Mix       Mix     `json:"mix"`
	KeyDist   KeyDist `json:"key_dist"`
	ValueSize int     `json:"value_size,omitempty"` // bytes written per value; 0: the unique id alone
	// KeyTTL, when set, adds TTLKeys keys in a bucket of their own, each
	// created with this per-key TTL by a client that reads it until it is
	// gone and creates it again (kv-ttl judges them); LimitMarkerTTL is
	// that bucket's LimitMarkerTTL, and TTLSlack the slack kv-ttl allows
	// on either side of an expiry.
	KeyTTL         time.Duration `json:"key_ttl,omitempty"`
	LimitMarkerTTL time.Duration `json:"limit_marker_ttl,omitempty"`
	TTLKeys        int           `json:"ttl_keys,omitempty"`
	TTLSlack       time.Duration `json:"ttl_slack,omitempty"`
}

// DefaultTTLSlack is --ttl-slack's default. A replica's store checks for
// expired messages on a timer it re-arms no sooner than 250 ms, and when
// removals go through the leader's proposals (limit markers) it looks
// again after up to 2 s (nats-server filestore.go, resetAgeChk).
const DefaultTTLSlack = 2 * time.Second

// MinTTL is the server's shortest per-message TTL (ADR-43: Nats-TTL
// takes whole seconds, at least 1).
const MinTTL = time.Second

// DefaultConvergeTimeout is --converge-timeout's default: long enough for a
// replica that was a few messages behind at the heal to catch up.
const DefaultConvergeTimeout = 30 * time.Second

// MaxKeys bounds --keys: the checkers are benchmarked up to it.
const MaxKeys = 10_000

// maxValueSize bounds --value-size (the server's default max payload).
const maxValueSize = 1 << 20

// WithDefaults fills unset fields.
func (o Options) WithDefaults() Options {
	if o.Bucket == "" {
		o.Bucket = "chaos"
	}
	if o.Keys == 0 {
		o.Keys = 10
	}
	if o.Clients == 0 {
		o.Clients = 10
	}
	if o.Pattern == "" {
		o.Pattern = SingleWriter
	}
	if o.Replicas == 0 {
		o.Replicas = 3
	}
	if o.OpTimeout == 0 {
		o.OpTimeout = 2 * time.Second
	}
	if o.History == 0 {
		o.History = 1
	}
	if o.ConvergeTimeout == 0 {
		o.ConvergeTimeout = DefaultConvergeTimeout
	}
	if o.Mix.IsZero() {
		o.Mix = DefaultMix
	}
	return o
}

// Validate returns a one-line error for the first bad field.
func (o Options) Validate(nodes int) error {
	switch {
	case o.Keys < 1:
		return fmt.Errorf("--keys must be at least 1, got %d", o.Keys)
	case o.Keys > MaxKeys:
		return fmt.Errorf("--keys must be at most %d (the checkers are benchmarked up to it), got %d", MaxKeys, o.Keys)
	case o.History != KeepAll && (o.History < 1 || o.History > 64):
		return fmt.Errorf("--history must be 1..64 or all, got %d", o.History)
	case o.Mix.total() == 0 || o.Mix.Update < 0 || o.Mix.Delete < 0 || o.Mix.Purge < 0 || o.Mix.Create < 0:
		return fmt.Errorf("--mix %q: weights must be >= 0 and not all 0", o.Mix)
	case o.KeyDist.Zipf != 0 && o.KeyDist.Zipf <= 1:
		return fmt.Errorf("--key-dist zipf:%g: the exponent must be > 1", o.KeyDist.Zipf)
	case o.ValueSize < 0 || o.ValueSize > maxValueSize:
		return fmt.Errorf("--value-size must be 0..%d bytes, got %d", maxValueSize, o.ValueSize)
	case o.Clients < 1:
		return fmt.Errorf("--clients must be at least 1, got %d", o.Clients)
	case o.Pattern == SingleWriter && o.Clients > o.Keys:
		return fmt.Errorf("--pattern single-writer needs --keys >= --clients (%d < %d): each key has one writer", o.Keys, o.Clients)
	case o.Replicas < 1 || o.Replicas > nodes:
		return fmt.Errorf("--replicas must be 1..%d (the cluster size), got %d", nodes, o.Replicas)
	case o.Rate < 0:
		return fmt.Errorf("--rate must not be negative")
	case o.OpTimeout < 10*time.Millisecond:
		return fmt.Errorf("--op-timeout %s is too short", o.OpTimeout)
	case o.ConvergeTimeout < time.Second:
		return fmt.Errorf("--converge-timeout %s is too short: replicas are read again every %s", o.ConvergeTimeout, replicaread.Every)
	}
	if err := o.validateTTL(); err != nil {
		return err
	}
	for _, p := range Patterns {
		if o.Pattern == p {
			return nil
		}
	}
	return fmt.Errorf("--pattern %q is not one of %v", o.Pattern, Patterns)
}

// validateTTL judges the TTL keys' flags.
func (o Options) validateTTL() error {
	switch {
	case o.KeyTTL < 0 || o.KeyTTL > 0 && o.KeyTTL < MinTTL:
		return fmt.Errorf("--key-ttl %s is below the server's 1s minimum", o.KeyTTL)
	case o.KeyTTL%time.Second != 0:
		return fmt.Errorf("--key-ttl %s is not whole seconds: Nats-TTL takes seconds", o.KeyTTL)
	case o.LimitMarkerTTL < 0 || o.LimitMarkerTTL > 0 && o.LimitMarkerTTL < MinTTL:
		return fmt.Errorf("--limit-marker-ttl %s is below the server's 1s minimum", o.LimitMarkerTTL)
	case o.LimitMarkerTTL%time.Second != 0:
		return fmt.Errorf("--limit-marker-ttl %s is not whole seconds", o.LimitMarkerTTL)
	case o.LimitMarkerTTL > 0 && o.KeyTTL == 0:
		return fmt.Errorf("--limit-marker-ttl needs --key-ttl: markers are left by keys that expire")
	case o.KeyTTL > 0 && (o.TTLKeys < 1 || o.TTLKeys > 100):
		return fmt.Errorf("--ttl-keys must be 1..100, got %d", o.TTLKeys)
	case o.TTLSlack < 0:
		return fmt.Errorf("--ttl-slack must not be negative, got %s", o.TTLSlack)
	}
	return nil
}
