package queue

import (
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/history"
	"github.com/jetstream-chaos/jetstream-chaos/internal/latency"
)

// second is one row of queue.csv.
type second struct {
	published, failed, indeterminate int
	deliveries, redeliveries         int
	acks, naks                       int
	latencies                        []int64 // first deliveries received in this second
	pending                          []int64 // per consumer: last sample in this second, -1 if none
	faults                           []string
}

// series builds one row per second of the cell, from the run's start to
// its last op.
func series(ix *index) []second {
	var last int64
	for i := range ix.c.Ops {
		last = max(last, ix.c.Ops[i].Complete)
	}
	rows := make([]second, last/1e9+1)
	for i := range rows {
		rows[i].pending = make([]int64, len(ix.c.Consumers))
		for c := range rows[i].pending {
			rows[i].pending[c] = -1
		}
	}
	at := func(t int64) *second { return &rows[max(t, 0)/1e9] }
	for i := range ix.c.Ops {
		op := &ix.c.Ops[i]
		switch op.Type {
		case OpPublish:
			s := at(op.Complete)
			switch op.Outcome {
			case history.OK:
				s.published++
			case history.Fail:
				s.failed++
			default:
				s.indeterminate++
			}
		case OpAck, OpAckSync:
			at(op.Complete).acks++
		case OpNak:
			at(op.Complete).naks++
		case history.Fault:
			if op.Outcome != history.Fail {
				for t := op.Invoke / 1e9; t <= op.Complete/1e9 && t < int64(len(rows)); t++ {
					rows[t].faults = append(rows[t].faults, op.Fault)
				}
			}
		}
	}
	for c, ns := range ix.samples {
		for _, n := range ns {
			if op := &ix.c.Ops[n]; op.Outcome == history.OK {
				at(op.Complete).pending[c] = int64(op.M.Pending + op.M.AckPending)
			}
		}
	}
	ix.groups(func(ds []delivery) {
		for k, d := range ds {
			s := at(d.complete)
			s.deliveries++
			if d.count > 1 || k > 0 {
				s.redeliveries++
			}
		}
		if first := ds[0]; first.val >= 0 && ix.vals[first.val].published {
			s := at(first.complete)
			s.latencies = append(s.latencies, first.complete-ix.vals[first.val].firstInvoke)
		}
	})
	return rows
}

// WriteSeries writes queue.csv: per second of the cell, publishes by
// outcome, deliveries, redeliveries, acks and naks, the delivery latency
// (publish invoke to first delivery to a consumer) percentiles of the
// messages first delivered in that second, each consumer's pending count
// (NumPending + NumAckPending of its last sample in that second, empty when
// none) and their total, and the faults in effect.
func WriteSeries(path string, c *Cell) error {
	ix := newIndex(c)
	rows := series(ix)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	head := []string{"second", "published", "publish_failed", "publish_indeterminate", "deliveries", "redeliveries", "acks", "naks",
		"latency_p50_ms", "latency_p99_ms", "latency_max_ms", "pending_total"}
	for _, name := range c.Consumers {
		head = append(head, "pending_"+name)
	}
	_ = w.Write(append(head, "faults"))
	for t, s := range rows {
		slices.Sort(s.latencies)
		rec := []string{strconv.Itoa(t), itoa(s.published), itoa(s.failed), itoa(s.indeterminate), itoa(s.deliveries),
			itoa(s.redeliveries), itoa(s.acks), itoa(s.naks), msCell(s.latencies, 50), msCell(s.latencies, 99), msCell(s.latencies, 100)}
		total, any := int64(0), false
		var per []string
		for _, p := range s.pending {
			if p < 0 {
				per = append(per, "")
				continue
			}
			total, any = total+p, true
			per = append(per, strconv.FormatInt(p, 10))
		}
		rec = append(rec, map[bool]string{true: strconv.FormatInt(total, 10), false: ""}[any])
		rec = append(append(rec, per...), strings.Join(s.faults, "+"))
		_ = w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func itoa(n int) string { return strconv.Itoa(n) }

// msCell is the p-th percentile (nearest rank) of sorted ns values in ms,
// empty when there are none.
func msCell(sorted []int64, p float64) string {
	if len(sorted) == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f", float64(latency.Percentile(sorted, p))/1e6)
}
