package record

import (
	"encoding/json"
	"testing"
)

// TestOnlineLine: a cell's live counts in words, as its live checker put
// them, and for cells stored before the words were, kv-update's counts in
// the words that version used (their JSON object decodes into the map).
func TestOnlineLine(t *testing.T) {
	for _, tc := range []struct {
		name, stored, want string
	}{
		{"words stored", `{"counts":{"x":1},"words":"1 lost message"}`, "1 lost message"},
		{"kv-update before words", `{"counts":{"gets":9,"stale_reads":3,"ryw_violations":1,"monotonic_violations":0,"rejected_by_stale_reads":2,"late_ops":0}}`,
			"3 stale reads, 1 read-your-writes and 0 monotonic-read violations, 2 updates rejected by stale reads"},
		{"another workload without words", `{"counts":{"redelivered":2,"lost_acks":1}}`, "lost acks 1, redelivered 2"},
		{"no counts", `{"counts":{}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o Online
			if err := json.Unmarshal([]byte(tc.stored), &o); err != nil {
				t.Fatal(err)
			}
			if got := o.Line(); got != tc.want {
				t.Errorf("Line() = %q, want %q", got, tc.want)
			}
		})
	}
}
