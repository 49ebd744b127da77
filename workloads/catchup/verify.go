package catchup

import "github.com/jetstream-chaos/jetstream-chaos/observe"

// Integrity is the verdict on the stream's content after the heal.
type Integrity struct {
	Replicas       []observe.ReplicaState `json:"replicas"`
	ReplicasAgree  bool                   `json:"replicas_agree"`
	ReplicasDetail string                 `json:"replicas_detail"`

	Acked     uint64 `json:"acked"`      // ids acknowledged to the publishers
	Read      uint64 `json:"read"`       // messages read back
	Distinct  uint64 `json:"distinct"`   // distinct ids read back
	Dups      uint64 `json:"duplicates"` // ids read more than once
	Malformed uint64 `json:"malformed"`  // messages without a valid id
	Missing   uint64 `json:"missing"`    // acked and not read back
	// Unacked are ids read back that were never acknowledged: publishes
	// that failed or timed out and were stored anyway (allowed).
	Unacked         uint64   `json:"unacked_present"`
	MissingExamples []string `json:"missing_examples,omitempty"`
	Complete        bool     `json:"complete"` // the read reached the stream's last sequence
	LastSeqRead     uint64   `json:"last_seq_read"`
	ReadDetail      string   `json:"read_detail"`
	ReadSeconds     float64  `json:"read_seconds"`
	BitmapBytes     int      `json:"bitmap_bytes"` // memory the two id sets took
}
