package findings

import (
	"encoding/json"
	"fmt"
	"time"
)

// kv-update is described here, not from its view package: the section
// builders of its anomalies (applied.go, lost.go, spurious.go) read its
// settings too, and this package's golden files are its cells.
const kvWorkload = "kv-update"

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
type kvDescriber struct{}

func (kvDescriber) Setup(raw json.RawMessage, directGet bool) (string, error) {
	kv, ok := decodeKV(raw)
	if !ok {
		return "", nil
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
	return s + ".", nil
}

func (kvDescriber) Steps(raw json.RawMessage, directGet bool) (string, error) {
	kv, ok := decodeKV(raw)
	if !ok {
		return "", nil
	}
	dg := "turn Direct Get off on its stream (UpdateStream with AllowDirect false, then bind a new KeyValue handle)"
	if directGet {
		dg = "keep Direct Get on (the KV default)"
	}
	return fmt.Sprintf("create a KV bucket with %d replicas and ", kv.Replicas) + dg +
		"; run one client per key, each connected to one node, looping `kv.Get(key)` then `kv.Update(key, uniqueValue, revision)`", nil
}
