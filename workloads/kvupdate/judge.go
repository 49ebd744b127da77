package kvupdate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/kvcheck"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// BucketFile records the bucket as the server confirmed it and the ops
// the cell mixed in: what the checkers need to know to judge the files.
const BucketFile = "bucket.json"

// Bucket is bucket.json.
type Bucket struct {
	Stream            string  `json:"stream"`
	History           History `json:"history"`
	MaxMsgsPerSubject int64   `json:"max_msgs_per_subject"`
	AllowDirect       bool    `json:"allow_direct"`
	Mix               Mix     `json:"mix"`
	KeyDist           KeyDist `json:"key_dist"`
	ValueSize         int     `json:"value_size,omitempty"`
	// The TTL keys' bounds (--key-ttl), when the cell had them.
	KeyTTL         time.Duration `json:"key_ttl,omitempty"`
	LimitMarkerTTL time.Duration `json:"limit_marker_ttl,omitempty"`
	TTLSlack       time.Duration `json:"ttl_slack,omitempty"`
}

// perKey is the checkers' revisions kept per key (0: all).
func (b Bucket) perKey() int {
	if b.History == KeepAll {
		return 0
	}
	return int(b.History)
}

// writeBucket saves bucket.json.
func (w *Workload) writeBucket(dir string) error {
	b := Bucket{Stream: w.StreamName(), History: w.opts.History, MaxMsgsPerSubject: w.opts.History.maxMsgsPerSubject(),
		AllowDirect: w.opts.DirectGet, Mix: w.opts.Mix, KeyDist: w.opts.KeyDist, ValueSize: w.opts.ValueSize,
		KeyTTL: w.opts.KeyTTL, LimitMarkerTTL: w.opts.LimitMarkerTTL, TTLSlack: w.opts.TTLSlack}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, BucketFile), append(data, '\n'), 0o644)
}

// CheckDir judges a kv-update cell from its files alone.
//
// A cell stored before bucket.json kept every revision and is judged as it
// always was: the read-back is the stream. Otherwise the checkers' stream
// is the read-back with what the observers saw filling the sequences it no
// longer holds (mergeStreams), except for a keep-all bucket without purges,
// whose read-back alone must still hold every message; the read-back is
// also judged on its own (checker.Retention), and so are markers and
// creates (checker.Deletes) and the replicas (checker.CheckDivergence).
// A history longer than opts.PartOps ops is judged in parts (checkInParts).
func CheckDir(dir string, opts checker.Options) ([]checker.Result, error) {
	raw, err := os.ReadFile(filepath.Join(dir, BucketFile))
	if errors.Is(err, os.ErrNotExist) {
		h, err := history.Load(dir)
		if err != nil {
			return nil, err
		}
		return kvcheck.Run(h, kvcheck.All(opts)), nil
	}
	if err != nil {
		return nil, err
	}
	var b Bucket
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("%s: %w", BucketFile, err)
	}
	if n, err := partsFor(dir, opts); err != nil {
		return nil, err
	} else if n > 1 {
		results, err := checkInParts(dir, b, opts, n)
		switch {
		case err == nil:
			return append(append(results, guardedDivergence(dir, opts)), b.ttlResults(dir, opts)...), nil
		case !errors.Is(err, errCrossed):
			return nil, err
		}
		// A sequence read across keys (itself an anomaly): judged whole.
	}
	h, err := history.Load(dir)
	if err != nil {
		return nil, err
	}
	var obs *observedFile
	observed, head, err := ReadObserved(filepath.Join(dir, ObservedFile))
	switch {
	case err == nil:
		obs = &observedFile{entries: observed, head: head}
	case !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	results := kvcheck.Run(h, b.checks(&h, obs, nil, opts))
	results = append(results, guardedDivergence(dir, opts))
	return append(results, b.ttlResults(dir, opts)...), nil
}

// ttlResults is kv-ttl's result for a cell with TTL keys, none otherwise.
func (b Bucket) ttlResults(dir string, opts checker.Options) []checker.Result {
	if b.KeyTTL == 0 {
		return nil
	}
	return []checker.Result{checker.Guard(CheckTTL, func() checker.Result {
		ops, err := history.ReadOps(filepath.Join(dir, "history.jsonl"))
		if err == nil {
			var f TTLFinal
			var ok bool
			if f, ok, err = loadTTL(dir); err == nil {
				var final *TTLFinal
				if ok {
					final = &f
				}
				return TTL(ops, final, TTLBounds{Key: b.KeyTTL, Marker: b.LimitMarkerTTL, Slack: b.TTLSlack}, opts.MaxExamples)
			}
			err = fmt.Errorf("%s: %w", TTLFile, err)
		}
		why := "the TTL keys' files do not read: " + err.Error()
		return checker.Result{Name: CheckTTL, Verdict: checker.Unknown, Reason: why, Summary: why, Counts: map[string]int{}}
	})}
}

// guardedDivergence is the divergence check under checker.Guard, like the
// history's checkers.
func guardedDivergence(dir string, opts checker.Options) checker.Result {
	return checker.Guard(replicas.NameDivergence, func() checker.Result { return divergence(dir, opts) })
}

// observedFile is observed.jsonl, or a part's share of it.
type observedFile struct {
	entries []history.Entry
	head    ObservedHead
}

// checks are the checkers of one history, whole or a part, with h's
// stream made the one they judge: the read-back, merged with what the
// observers saw when the bucket drops revisions (obs nil: the run was
// interrupted before the observers were drained). whole, for a part, is
// what the whole stream tells (judgedStream); nil, it is found from h.
func (b Bucket) checks(h *history.History, obs *observedFile, whole *streamFacts, opts checker.Options) []kvcheck.Checker {
	final := kvcheck.Final{Entries: h.Stream, Complete: h.StreamComplete, Torn: h.StreamTorn, PerKey: b.perKey()}
	var head *ObservedHead
	if obs != nil {
		final.Observed, final.Conflicts, head = obs.entries, obs.head.Conflicts, &obs.head
		if b.merged() {
			h.Stream = mergeStreams(final.Entries, obs.entries)
		}
	}
	if whole == nil {
		var maxHeld uint64
		for _, e := range h.Stream {
			maxHeld = max(maxHeld, e.Seq)
		}
		f := b.judgedStream(final.Complete, head, len(h.Stream), maxHeld)
		whole = &f // readReached 0: the read-back is final.Entries, whole
	}
	h.StreamComplete, h.StreamLast = whole.complete, whole.last
	final.Reached = whole.readReached
	return append(kvcheck.All(opts), kvcheck.NewRetention(opts, final), kvcheck.NewDeletes(opts, final))
}

// divergence judges replicas.json; a cell without it says why.
func divergence(dir string, opts checker.Options) checker.Result { return replicaread.Judge(dir, opts) }
