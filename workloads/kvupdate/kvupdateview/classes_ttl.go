package kvupdateview

import (
	"github.com/jetstream-chaos/jetstream-chaos/findings"
	"github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate"
)

// kv-ttl's anomaly kinds as finding.md sections (the kinds and their
// rules are in kvupdate's ttl_check.go). Its unsure kinds make the check
// unknown, never a finding.
func init() {
	findings.RegisterClasses(
		findings.Class{Check: kvupdate.CheckTTL, Kind: "expired_read", Slug: "kv-ttl-expired-value-read", Rank: 1, Promise: promiseTTL,
			Title: "A KV get returned a value past its per-key TTL"},
		findings.Class{Check: kvupdate.CheckTTL, Kind: "live_missing", Slug: "kv-ttl-live-value-gone", Rank: 0, Promise: promiseTTL,
			Title: "A KV get found no value before the key's per-key TTL had passed"},
		findings.Class{Check: kvupdate.CheckTTL, Kind: "marker_missing", Slug: "kv-ttl-marker-missing", Rank: 1, Promise: promiseMarker,
			Title: "A KV key expired without leaving a limit marker"},
		findings.Class{Check: kvupdate.CheckTTL, Kind: "replica_kept_expired", Slug: "kv-ttl-replica-kept-expired", Rank: 1, Promise: promiseTTLReplicas,
			Title: "A replica still held expired messages after every TTL had passed"},
	)
}

const (
	promiseTTL = "A message published with `Nats-TTL` (kv.Create with a TTL) to a stream with `AllowMsgTTL` is removed " +
		"once its TTL has passed since it was stored, and not before (ADR-43; nats-server `server/filestore.go`, " +
		"`expireMsgs`); a key-value get answers with the key's latest value while it lives."
	promiseMarker = "A bucket with `LimitMarkerTTL` (`SubjectDeleteMarkerTTL`) leaves a marker with " +
		"`Nats-Marker-Reason: MaxAge` when a key's last message expires, so watchers learn of the removal (ADR-43)."
	promiseTTLReplicas = "Each replica expires messages on its own timer, and every replica removes a message once its TTL " +
		"has passed (ADR-43; nats-server `server/filestore.go`, `expireMsgs`)."
)
