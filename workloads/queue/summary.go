package queue

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/latency"
)

// Summarize is the cell's account in words: what the producers and
// consumers did, the delivery latency and peak pending, and a verdict
// sentence that names what was lost or duplicated.
func Summarize(c *Cell, results []checker.Result) []string {
	ix := newIndex(c)
	o := c.Options
	var ok, info, fail, attempts, dedup int
	for i := range ix.vals {
		switch ix.vals[i].outcome {
		case history.OK:
			ok++
		case history.Info:
			info++
		case history.Fail:
			fail++
		}
	}
	for i := range c.Ops {
		if c.Ops[i].Type == OpPublish {
			attempts++
			if c.Ops[i].Err == ErrDuplicate {
				dedup++
			}
		}
	}
	redelivered := 0
	var lat []int64
	peak, peakAt, peakName := int64(0), 0, ""
	for t, s := range series(ix) {
		redelivered += s.redeliveries
		lat = append(lat, s.latencies...)
		for k, p := range s.pending {
			if p > peak {
				peak, peakAt, peakName = p, t, c.Consumers[k]
			}
		}
	}
	slices.Sort(lat)
	consumers := fmt.Sprintf("%s (%s acks, %s each)", plural(o.Consumers, "durable pull consumer"), o.Ack, plural(o.Workers, "worker"))
	if o.Pattern == Ordered {
		consumers = plural(o.Consumers, "ordered push consumer")
	}
	lines := []string{
		fmt.Sprintf("  queue: %s published %d values to an R%d stream with %s retention (%d acknowledged, %d indeterminate, %d failed; %d attempts, %d deduplicated)",
			plural(o.Producers, "producer"), ok+info+fail, o.Replicas, o.Retention, ok, info, fail, attempts, dedup),
		fmt.Sprintf("  %s received %d deliveries (%d redeliveries)", consumers, len(ix.dels), redelivered),
	}
	if len(lat) > 0 {
		lines = append(lines, fmt.Sprintf("  delivery latency (publish to first delivery): p50 %s, p99 %s, max %s; peak pending %d (%s at %ds)",
			msOf(latency.Percentile(lat, 50)), msOf(latency.Percentile(lat, 99)), msOf(lat[len(lat)-1]), peak, peakName, peakAt))
	}
	return append(lines, "  "+verdictSentence(ok, len(c.Consumers), results))
}

// verdictSentence says in words what was lost or duplicated, naming
// examples, or that nothing was.
func verdictSentence(acked, consumers int, results []checker.Result) string {
	byName := map[string]checker.Result{}
	for _, r := range results {
		byName[r.Name] = r
	}
	lost, dup := byName[CheckLost], byName[CheckDuplicate]
	var parts []string
	if n := lost.Counts["lost"]; n > 0 {
		parts = append(parts, fmt.Sprintf("LOST %d of %d acknowledged messages, never delivered and not in the stream (%s)", n, acked, values(lost, "lost", 0)))
	}
	if n := lost.Counts["skipped"]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d acknowledged messages never reached a drained consumer (%s)", n, values(lost, "skipped", 0)))
	}
	if n := dup.Counts["after_confirmed_ack"]; n > 0 {
		parts = append(parts, fmt.Sprintf("DUPLICATED %d deliveries after a confirmed AckSync (%s)", n, values(dup, "after_confirmed_ack", 1)))
	}
	if n := dup.Counts["stored_twice"]; n > 0 {
		parts = append(parts, fmt.Sprintf("DUPLICATED %d values stored twice despite their Nats-Msg-Id (%s)", n, values(dup, "stored_twice", 0)))
	}
	for _, r := range results {
		if r.Verdict == checker.Invalid && r.Name != CheckLost && r.Name != CheckDuplicate {
			parts = append(parts, r.Name+": "+r.Summary)
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "; ")
	}
	if lost.Verdict == checker.Valid && dup.Verdict == checker.Valid {
		return fmt.Sprintf("nothing lost or duplicated: all %d acknowledged messages reached each of %s, none again after a confirmed ack, none stored twice", acked, plural(consumers, "consumer"))
	}
	return fmt.Sprintf("no loss or duplicate found, but not everything could be decided: %s", firstReason(results))
}

// values names up to three example values of kind, taken from the
// anomalies' op at position at.
func values(r checker.Result, kind string, at int) string {
	var out []string
	for _, a := range r.Anomalies {
		if a.Kind == kind && at < len(a.Ops) && len(out) < 3 {
			out = append(out, MsgOf(a.Ops[at].Op).Value)
		}
	}
	if n := r.Counts[kind]; n > len(out) {
		out = append(out, "...")
	}
	return strings.Join(out, ", ")
}

func firstReason(results []checker.Result) string {
	for _, r := range results {
		if r.Verdict == checker.Unknown {
			return r.Name + ": " + r.Reason
		}
	}
	return "no checker decided"
}
