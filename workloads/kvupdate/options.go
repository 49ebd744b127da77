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
}

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
	for _, p := range Patterns {
		if o.Pattern == p {
			return nil
		}
	}
	return fmt.Errorf("--pattern %q is not one of %v", o.Pattern, Patterns)
}
