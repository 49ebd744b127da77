package catchup

// The observer samples, each on its own goroutine so that one slow or dead
// node never delays another's readings:
//
//	what                         how                                   every
//	memory as the limit sees it  Cluster.Memory (docker: the cgroup's   SampleInterval (<= 250 ms)
//	                             usage, page cache included)
//	resident memory              /varz mem (the process's RSS)          SampleInterval
//	runtime state                Cluster.State (OOM kills, restarts)    250 ms
//	health                       /healthz, full                         1 s
//	the target's lag             target /jsz + leader stream info       500 ms
//
// The cgroup figure is what an OOM kill compares with the limit, but it
// counts page cache, which a node writing a 6 GB stream fills: on an
// unlimited node it grows with the stream and says nothing about the
// server. RSS is the server's own memory and the figure to compare across
// versions; both are kept.

// Series is a time series: T in ms since the run began, V the values.
type Series struct {
	T []int64 `json:"t_ms"`
	V []int64 `json:"v"`
}

func (s *Series) add(t, v int64) {
	s.T = append(s.T, t)
	s.V = append(s.V, v)
}

// Peak is the largest value and when it was seen (-1 when empty).
func (s Series) Peak() (v, t int64) {
	t = -1
	for i, x := range s.V {
		if t < 0 || x > v {
			v, t = x, s.T[i]
		}
	}
	return v, t
}

// PeakBetween is the peak over from <= T < to (-1 time when none).
func (s Series) PeakBetween(from, to int64) (v, t int64) {
	t = -1
	for i, x := range s.V {
		if s.T[i] >= from && s.T[i] < to && (t < 0 || x > v) {
			v, t = x, s.T[i]
		}
	}
	return v, t
}

// At is the last value at or before t, or 0 when none.
func (s Series) At(t int64) int64 {
	var v int64
	for i, ti := range s.T {
		if ti > t {
			break
		}
		v = s.V[i]
	}
	return v
}

// HealthSample is one /healthz answer (Status 0: no answer).
type HealthSample struct {
	TMs    int64  `json:"t_ms"`
	Node   string `json:"node"`
	OK     bool   `json:"ok"`
	Status int    `json:"status"`
	Error  string `json:"error,omitempty"`
}

// LagSample is the target's progress as it and the stream leader see it.
type LagSample struct {
	TMs int64 `json:"t_ms"`
	// The target's own copy, from its /jsz.
	TargetHas     bool   `json:"target_has_stream"`
	TargetMsgs    uint64 `json:"target_msgs"`
	TargetBytes   uint64 `json:"target_bytes"`
	TargetLastSeq uint64 `json:"target_last_seq"`
	TargetHealthy bool   `json:"target_healthy"`
	TargetHealth  string `json:"target_health,omitempty"` // why not healthy
	// The leader's view, from stream info.
	Leader         string `json:"leader,omitempty"`
	LeaderMsgs     uint64 `json:"leader_msgs"`
	LeaderBytes    uint64 `json:"leader_bytes"`
	LeaderLastSeq  uint64 `json:"leader_last_seq"`
	ReplicaLag     uint64 `json:"replica_lag"` // raft entries, as the leader reports
	ReplicaCurrent bool   `json:"replica_current"`
	ReplicaOffline bool   `json:"replica_offline"`
	// Behind is leader last seq minus target last seq (0 when ahead).
	Behind uint64 `json:"behind"`
	Err    string `json:"error,omitempty"`
}

// NodeMemory is one node's memory over the run.
type NodeMemory struct {
	Node  string `json:"node"`
	Usage Series `json:"usage"` // bytes, as the limit sees it (Cluster.Memory)
	RSS   Series `json:"rss"`   // bytes, resident (/varz mem)
	Limit Series `json:"limit"` // bytes, each change of the hard limit (0: none)

	PeakUsage   int64 `json:"peak_usage"`
	PeakUsageAt int64 `json:"peak_usage_at_ms"`
	PeakRSS     int64 `json:"peak_rss"`
	PeakRSSAt   int64 `json:"peak_rss_at_ms"`
	// Peaks as a ratio to the stream's bytes when the target restarted (the
	// data it had to catch up).
	PeakUsageRatio float64 `json:"peak_usage_ratio"`
	PeakRSSRatio   float64 `json:"peak_rss_ratio"`
}
