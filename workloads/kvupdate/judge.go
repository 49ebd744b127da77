package kvupdate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
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
		AllowDirect: w.opts.DirectGet, Mix: w.opts.Mix, KeyDist: w.opts.KeyDist, ValueSize: w.opts.ValueSize}
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
func CheckDir(dir string, opts checker.Options) ([]checker.Result, error) {
	h, err := history.Load(dir)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, BucketFile))
	if errors.Is(err, os.ErrNotExist) {
		return checker.Run(h, checker.All(opts)), nil
	}
	if err != nil {
		return nil, err
	}
	var b Bucket
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, fmt.Errorf("%s: %w", BucketFile, err)
	}
	final := checker.Final{Entries: h.Stream, Complete: h.StreamComplete, PerKey: b.perKey()}
	observed, head, err := ReadObserved(filepath.Join(dir, ObservedFile))
	switch {
	case err == nil:
		final.Observed, final.Conflicts = observed, head.Conflicts
		if b.perKey() != 0 || b.Mix.Purge > 0 {
			h.Stream, h.StreamComplete = mergeStreams(final.Entries, observed, head.LastSeq)
		}
	case errors.Is(err, os.ErrNotExist):
		// Interrupted before the observers were drained: the read-back
		// alone, which with a bounded history is incomplete.
		h.StreamComplete = h.StreamComplete && b.perKey() == 0 && b.Mix.Purge == 0
	default:
		return nil, err
	}
	checks := append(checker.All(opts), checker.NewRetention(opts, final), checker.NewDeletes(opts, final))
	results := checker.Run(h, checks)
	return append(results, divergence(dir, opts)), nil
}

// divergence judges replicas.json; a cell without it says why.
func divergence(dir string, opts checker.Options) checker.Result {
	start := time.Now()
	reps, err := ReadReplicasFiles(dir)
	if err != nil {
		reason := "the replicas were not read: " + err.Error()
		if errors.Is(err, os.ErrNotExist) {
			reason = "the replicas were not read (the run ended before its finish)"
		}
		return checker.Result{Name: checker.NameDivergence, Verdict: checker.Unknown, Reason: reason, Summary: reason,
			Counts: map[string]int{}}
	}
	r := checker.CheckDivergence(reps, opts)
	r.ElapsedMs = float64(time.Since(start).Microseconds()) / 1000
	return r
}
