package observe

// Series is a time series: T in ms since the history's zero, V the values.
// It is the shape the memory checks and charts read (and catchup.json
// stored before the observer was the pipeline's).
type Series struct {
	T []int64 `json:"t_ms"`
	V []int64 `json:"v"`
}

// Add appends one point; t must not go back.
func (s *Series) Add(t, v int64) {
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

// NodeMemory is one node's memory over a cell.
type NodeMemory struct {
	Node  string `json:"node"`
	Usage Series `json:"usage"` // bytes, as the limit sees it (Cluster.Memory)
	RSS   Series `json:"rss"`   // bytes, resident (/varz mem)
	Limit Series `json:"limit"` // bytes, each change of the hard limit (0: none)
}

// HealthSample is one /healthz answer (Status 0: no answer), at TMs ms.
type HealthSample struct {
	TMs    int64  `json:"t_ms"`
	Node   string `json:"node"`
	OK     bool   `json:"ok"`
	Status int    `json:"status"`
	Error  string `json:"error,omitempty"`
}
