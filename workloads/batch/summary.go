package batch

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Summary is the cell's account in words: the batches tried, by kind and
// outcome; what the readers read; how far the stream was read back.
func (workload) Summary(dir string) ([]string, error) {
	ops, err := history.ReadOps(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		return nil, err
	}
	rec, err := FromHistory(ops)
	if err != nil {
		return nil, err
	}
	rb, ok, err := loadReadBack(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ReadBackFile, err)
	}
	return summarize(rec, rb, ok), nil
}

func summarize(rec Recorded, rb ReadBack, read bool) []string {
	byKind := map[Kind]map[history.Outcome]int{}
	for _, b := range rec.Batches {
		if byKind[b.Kind] == nil {
			byKind[b.Kind] = map[history.Outcome]int{}
		}
		byKind[b.Kind][b.Outcome]++
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		n := byKind[Kind(k)]
		parts = append(parts, fmt.Sprintf("%s %d (acknowledged %d, refused %d, indeterminate %d)",
			k, n[history.OK]+n[history.Fail]+n[history.Info], n[history.OK], n[history.Fail], n[history.Info]))
	}
	out := []string{fmt.Sprintf("%d batches tried: %s", len(rec.Batches), strings.Join(parts, "; "))}
	out = append(out, fmt.Sprintf("%d deliveries to the readers' ordered consumers; %d multi-subject reads answered",
		len(rec.Deliveries), len(rec.Snapshots)))
	switch {
	case !read:
		out = append(out, "the stream was not read back: the cell stopped before its end")
	case rb.Complete:
		out = append(out, fmt.Sprintf("read back: %d messages, to the stream's last sequence %d", len(rb.Msgs), rb.LastSeq))
	default:
		out = append(out, fmt.Sprintf("read back: %d messages, up to sequence %d, not to the end (%s)", len(rb.Msgs), rb.LastSeq, rb.Detail))
	}
	return out
}
