package findings

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// kv-update is described here, not from its view package: the section
// builders of its anomalies (kv_applied.go, kv_lost.go, kv_spurious.go)
// read its settings too, and this package's golden files are its cells.
const kvWorkload = "kv-update"

// kvClasses are kv-update's anomaly kinds (package checker/kvcheck's
// checkers), with the promise each one breaks. The names are kvcheck's,
// written out, since this package imports no workload's; a test of
// kv-update's view holds them to kvcheck's constants.
var kvClasses = []Class{
	{"stream-integrity", "lost_write", "lost-write", "Acknowledged writes are missing from the stream", promiseAck, 0},
	{"stream-integrity", "failed_write_applied", "failed-write-applied", "A write answered with an error was applied", promiseCAS, 1},
	{"stream-integrity", "rev_mismatch", "revision-mismatch", "An acknowledged write is stored at another revision than the one acknowledged", promiseAck, 2},
	{"stream-integrity", "duplicate_value", "duplicate-value", "One write is stored twice", promiseOnce, 2},
	{"stream-integrity", "unexpected_value", "unexpected-value", "The stream holds a value no client wrote", promiseOnce, 2},
	{"stream-integrity", "unexpected_tombstone", "unexpected-tombstone", "The stream holds a delete marker no client asked for", promiseOnce, 2},
	{"stream-integrity", "bad_read", "bad-read", "A read returned a revision and value the stream does not hold", promiseRead, 3},
	{"wrong-last-seq", "spurious", "spurious-wrong-last-sequence", "kv.Update with the current revision was rejected with 10071", promiseCAS, 4},
	{"wrong-last-seq", "stale_read", "update-rejected-after-stale-read", "kv.Update was rejected because the read before it was stale", promiseRead, 5},
	{"linearizability", "non_linearizable", "not-linearizable", "A key's history is not linearizable", promiseLin, 5},
	{"stale-read", "stale_read", "stale-read", "A read returned an older revision than one already acknowledged", promiseRead, 6},
	{"session", "read_your_writes", "read-your-writes", "A client read an older revision than its own acknowledged write", promiseRead, 6},
	{"session", "monotonic_reads", "monotonic-reads", "A client read an older revision than one it had already read", promiseRead, 6},
}

const (
	promiseAck = "A write that JetStream acknowledged on a replicated stream (`kv.Put`, `kv.Create` or `kv.Update` returning a revision) " +
		"was stored by a quorum of the stream's replicas: it stays in the stream, at the sequence it was acknowledged with, " +
		"through the failure and restart of nodes."
	promiseCAS = "`kv.Update(key, value, expectedRevision)` is a compare-and-set: the server stores the value only if the key's " +
		"last revision is `expectedRevision` (nats.go sends it as the `Nats-Expected-Last-Subject-Sequence` header). " +
		"It returns the new revision when the write happened, and an error reply, such as 10071 `wrong last sequence: N` " +
		"or 10164 `wrong last sequence`, means the write did not happen."
	promiseOnce = "The stream holds what clients wrote, each acknowledged write once, and nothing else."
	promiseRead = "`kv.Get(key)` returns the key's latest revision, or at worst one that the stream holds (with Direct Get on, a " +
		"replica may answer from a store that is behind; with it off the stream leader answers)."
	promiseLin = "Each key of a KV bucket behaves as a single register: every operation takes effect at one instant between " +
		"its call and its reply, so there is one order of all the operations that explains every reply."
)

// The kv names the section builders and wrong-last-seq's rules below key on.
const (
	kvAttribution        = "wrong-last-seq"
	kvSpurious           = "spurious"       // a rejection of an update with the current revision
	kvSpurious10071      = "spurious_10071" // the count of those answered 10071
	kvStaleRejection     = "stale_read"     // a rejection after a stale read
	kvFailedWriteApplied = "failed_write_applied"
	kvLostWrite          = "lost_write"
)

// kvCountedKinds are wrong-last-seq's anomaly kinds it counted, whether or
// not it kept an example (examples are capped).
func kvCountedKinds(r *checker.Result) []string {
	var out []string
	if r.Name == kvAttribution && r.Counts[kvSpurious10071] > 0 {
		out = append(out, kvSpurious)
	}
	if r.Name == kvAttribution && r.Counts[kvStaleRejection] > 0 {
		out = append(out, kvStaleRejection)
	}
	return out
}

// kvIsAnomaly says whether an example wrong-last-seq keeps is an anomaly:
// not its concurrent and unattributed rejections, nor its spurious 10164s
// (the leader refusing while a write is in flight, by design: nats-server
// JSStreamWrongLastSequenceConstantErr, 10164).
func kvIsAnomaly(a checker.Anomaly) bool {
	switch a.Kind {
	case kvStaleRejection:
		return true
	case kvSpurious:
		return len(a.Ops) > 0 && a.Ops[len(a.Ops)-1].ErrCode == 10071
	}
	return false
}

// kvCount is how many spurious 10071s wrong-last-seq counted; ok is false
// for every other check and kind.
func kvCount(r *checker.Result, kind string) (n int, ok bool) {
	if r.Name == kvAttribution && kind == kvSpurious {
		return r.Counts[kvSpurious10071], true
	}
	return 0, false
}

// kvSettings are a kv-update cell's settings.
type kvSettings struct {
	Bucket    string        `json:"bucket"`
	Keys      int           `json:"keys"`
	Clients   int           `json:"clients"`
	Pattern   string        `json:"pattern"`
	Replicas  int           `json:"replicas"`
	OpTimeout time.Duration `json:"op_timeout"`
	// History is the revisions kept per key: -1 all; absent in cells
	// stored before kv-update had --history, which all kept every one.
	History *int `json:"history"`
	// The TTL keys (--key-ttl), when the cell had them.
	KeyTTL         time.Duration `json:"key_ttl"`
	LimitMarkerTTL time.Duration `json:"limit_marker_ttl"`
	TTLKeys        int           `json:"ttl_keys"`
}

// ttlWords are the TTL keys in a finding's words, or "".
func (kv kvSettings) ttlWords() string {
	if kv.KeyTTL <= 0 {
		return ""
	}
	s := fmt.Sprintf(" Beside it, bucket %q (stream `KV_%s_ttl`, same replicas and Direct Get, `allow_msg_ttl` true", kv.Bucket+"_ttl", kv.Bucket)
	if kv.LimitMarkerTTL > 0 {
		s += fmt.Sprintf(", `LimitMarkerTTL` %s", kv.LimitMarkerTTL)
	}
	return s + fmt.Sprintf(") holds %d TTL keys, one client each: `kv.Create(key, uniqueValue, jetstream.KeyTTL(%s))`, then "+
		"`kv.Get(key)` every 100 ms until the key is gone, then create it again; an ordered consumer reads every message of that stream.",
		kv.TTLKeys, kv.KeyTTL)
}

// decodeKV reads kv-update settings; ok is false for another workload's.
func decodeKV(raw json.RawMessage) (kv kvSettings, ok bool) {
	if len(raw) == 0 || json.Unmarshal(raw, &kv) != nil || kv.Bucket == "" {
		return kv, false
	}
	return kv, true
}

func (c *cell) kv() (kvSettings, bool) { return decodeKV(c.res.Settings) }

// kvDescriber describes kv-update's cells; another workload's settings,
// for want of its own describer, get "" (and then their JSON).
var kvDescriber = Describe(kvSetup, kvSteps)

func kvSetup(kv kvSettings, directGet bool) string {
	if kv.Bucket == "" {
		return ""
	}
	dg := "off (allow_direct false: every read is answered by the stream leader)"
	if directGet {
		dg = "on (allow_direct true: any replica answers reads)"
	}
	kept := "the bucket's history was raised to keep every revision, so the stream can be read back whole"
	if kv.History != nil && *kv.History > 0 {
		kept = fmt.Sprintf("the bucket keeps the last %s of each key (history %d; `nats kv add` makes 1), "+
			"so the read-back after the run holds only those; ordered consumers on the stream saw every revision during the run",
			plural(*kv.History, "revision", "revisions"), *kv.History)
	}
	s := fmt.Sprintf("KV bucket %q (stream `KV_%s`), %d replicas, file storage, Direct Get %s; %s. ",
		kv.Bucket, kv.Bucket, kv.Replicas, dg, kept)
	s += fmt.Sprintf("%d clients on %d keys, spread over the nodes (each connected to one node, the others as fallbacks)", kv.Clients, kv.Keys)
	if kv.Pattern == "single-writer" {
		s += "; each key has one writer, which loops `kv.Get(key)` then `kv.Update(key, value, revision from that get)`"
	} else if kv.Pattern != "" {
		s += "; pattern " + kv.Pattern
	}
	s += "; every value written is unique"
	if kv.OpTimeout > 0 {
		s += fmt.Sprintf("; each call times out after %s", kv.OpTimeout)
	}
	return s + "." + kv.ttlWords()
}

func kvSteps(kv kvSettings, directGet bool) string {
	if kv.Bucket == "" {
		return ""
	}
	dg := "turn Direct Get off on its stream (UpdateStream with AllowDirect false, then bind a new KeyValue handle)"
	if directGet {
		dg = "keep Direct Get on (the KV default)"
	}
	return fmt.Sprintf("create a KV bucket with %d replicas and ", kv.Replicas) + dg +
		"; run one client per key, each connected to one node, looping `kv.Get(key)` then `kv.Update(key, uniqueValue, revision)`" + kv.ttlWords()
}
