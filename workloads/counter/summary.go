package counter

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/client/replicaread"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Summary is the cell's account in words: the adds by outcome and how
// many were retried, the reads by path, each counter's final value, and
// each replica's value of each counter as read on its own server.
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
	out := summarize(adds, reads, final, ok)
	if reps, _, err := replicaread.Load(dir); err == nil {
		out = append(out, replicaValues(reps))
	}
	return out, nil
}

// replicaValues is each replica's last total of each counter, from the
// copy read on its own server: "n1 c0 14716 c1 15033; n2 ...".
func replicaValues(reps []replicas.Replica) string {
	var parts []string
	for _, rp := range reps {
		if rp.NotReplica {
			continue
		}
		last := map[string]string{}
		for _, e := range rp.Entries {
			body, _, _ := strings.Cut(e.Value, " incr ")
			if v, err := counterValue([]byte(body)); err == nil {
				last[e.Key] = fmt.Sprint(v)
			}
		}
		names := make([]string, 0, len(last))
		for c := range last {
			names = append(names, c)
		}
		sort.Strings(names)
		vals := make([]string, len(names))
		for i, c := range names {
			vals[i] = c + " " + last[c]
		}
		p := rp.Node + " " + strings.Join(vals, ", ")
		if !rp.Complete {
			p += " (read in part)"
		}
		parts = append(parts, p)
	}
	return "each replica's counters, read on its own server: " + strings.Join(parts, "; ")
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
