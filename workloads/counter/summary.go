package counter

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Summary is the cell's account in words: the adds by outcome and how
// many were retried, the reads by path, and each counter's final value.
func (workload) Summary(dir string) ([]string, error) {
	ops, err := history.ReadOps(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		return nil, err
	}
	adds, reads, err := FromHistory(ops)
	if err != nil {
		return nil, err
	}
	final, ok, err := loadFinal(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", FinalFile, err)
	}
	return summarize(adds, reads, final, ok), nil
}

func summarize(adds []Add, reads []Read, final Final, read bool) []string {
	by := map[history.Outcome]int{}
	retried := 0
	for _, a := range adds {
		by[a.Outcome]++
		if a.Attempts > 1 {
			retried++
		}
	}
	direct := 0
	for _, r := range reads {
		if r.Direct {
			direct++
		}
	}
	out := []string{
		fmt.Sprintf("%d adds: acknowledged %d, refused %d, indeterminate %d; %d retried under their Nats-Msg-Id",
			len(adds), by[history.OK], by[history.Fail], by[history.Info], retried),
		fmt.Sprintf("%d reads answered: %d through Direct Get, %d from the leader", len(reads), direct, len(reads)-direct),
	}
	if !read {
		return append(out, "the counters were not read after the heal: the cell stopped before its end")
	}
	names := make([]string, 0, len(final.Values))
	for c := range final.Values {
		names = append(names, c)
	}
	sort.Strings(names)
	vals := make([]string, len(names))
	for i, c := range names {
		vals[i] = fmt.Sprintf("%s %d", c, final.Values[c])
	}
	line := "after the heal: " + strings.Join(vals, ", ")
	if !final.Complete {
		line += " (not every counter was read: " + final.Detail + ")"
	}
	return append(out, line)
}
