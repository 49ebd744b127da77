package kvupdate

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// CheckTTL is the TTL keys' check's name.
const CheckTTL = "kv-ttl"

// ttlCreate and ttlGet are TTL ops with their history index.
type ttlAt struct {
	TTLOp
	Outcome history.Outcome
	Op      int
}

// ttlOps types the TTL keys' ops of a history, by key.
type ttlOps struct {
	creates, gets map[string][]ttlAt
	seen          map[string][]TTLSeen
	// windows are the fault windows on the host's clock (Unix ns), from
	// the history's times and a create's wall-clock twin.
	windows [][2]int64
}

func splitTTL(ops []history.Op) (ttlOps, error) {
	t := ttlOps{creates: map[string][]ttlAt{}, gets: map[string][]ttlAt{}, seen: map[string][]TTLSeen{}}
	var offset int64
	var faults []history.Op
	for n, op := range ops {
		switch op.Type {
		case history.Fault:
			if op.Outcome != history.Fail {
				faults = append(faults, op)
			}
		case OpTTLCreate, OpTTLGet:
			var d TTLOp
			if err := json.Unmarshal(op.Data, &d); err != nil {
				return t, fmt.Errorf("line %d: %s data: %w", n+1, op.Type, err)
			}
			a := ttlAt{TTLOp: d, Outcome: op.Outcome, Op: n}
			if offset == 0 && d.WallInvoke != 0 {
				offset = d.WallInvoke - op.Invoke
			}
			if op.Type == OpTTLCreate {
				t.creates[d.Key] = append(t.creates[d.Key], a)
			} else if op.Outcome == history.OK {
				t.gets[d.Key] = append(t.gets[d.Key], a)
			}
		case OpTTLSeen:
			var s TTLSeen
			if err := json.Unmarshal(op.Data, &s); err != nil {
				return t, fmt.Errorf("line %d: %s data: %w", n+1, op.Type, err)
			}
			t.seen[s.Key] = append(t.seen[s.Key], s)
		}
	}
	for _, f := range faults {
		t.windows = append(t.windows, [2]int64{f.Invoke + offset, f.Complete + offset})
	}
	for _, m := range []map[string][]ttlAt{t.creates, t.gets} {
		for _, l := range m {
			sort.SliceStable(l, func(i, j int) bool { return l[i].WallInvoke < l[j].WallInvoke })
		}
	}
	return t, nil
}

// TTLBounds are what kv-ttl holds a cell's TTL keys to: the key TTL, the
// marker TTL (0: no markers) and the slack on either side of an expiry.
type TTLBounds struct {
	Key, Marker, Slack time.Duration
}

// TTL is kv-ttl: a TTL key's value is read while it lives and not after.
// A get that begins later than the value's acknowledged create plus the
// TTL plus the slack must not return it (expired_read); a get that ends
// before the create began plus the TTL less the slack must find the
// latest acknowledged value (live_missing). A tie with either bound
// passes. With limit markers, every value seen expiring (a later get
// found nothing) leaves a marker the observer read before the key's next
// value (marker_missing; unknown, unobserved, when the observer did not
// read the stream to its end or missed a sequence where the marker would
// be: the key's next value evicts its marker at once). Once every TTL in flight had passed, every
// server must hold nothing of the bucket and agree on its last sequence
// (replica_kept_expired; unknown when a server did not answer).
// expiries_in_fault counts the values due to expire inside a fault
// window: the faults landed on expiries. The
// slack is named in the summary: the containers share the host's clock,
// so it covers the servers' expiry timers, not clock skew.
func TTL(ops []history.Op, final *TTLFinal, b TTLBounds, max int) checker.Result {
	r := checker.NewBuilder(CheckTTL, max)
	t, err := splitTTL(ops)
	if err != nil {
		r.Unsure("malformed", err.Error(), nil)
		r.Summarize("", "the TTL keys' ops do not decode")
		return r.Result
	}
	var late time.Duration // the longest a value was read past its TTL
	for key, gets := range t.gets {
		creates := t.creates[key]
		for _, g := range gets {
			if g.Found {
				if c, ok := createOf(creates, g.Value); ok {
					past := time.Duration(g.WallInvoke - (c.WallComplete + int64(b.Key)))
					late = maxDur(late, past)
					if past > b.Slack {
						r.Flag("expired_read", func() checker.Anomaly {
							return ttlAnomaly(key, []ttlAt{c, g}, fmt.Sprintf("a get of %s began %s after value %s was acknowledged plus its TTL %s, past the slack %s, and returned it",
								key, past.Round(time.Millisecond), g.Value, b.Key, b.Slack))
						})
					}
				}
				continue
			}
			c, ok := latestBefore(creates, g.WallInvoke)
			if !ok || c.Outcome != history.OK {
				continue
			}
			if early := time.Duration(c.WallInvoke + int64(b.Key) - g.WallComplete); early > b.Slack {
				r.Flag("live_missing", func() checker.Anomaly {
					return ttlAnomaly(key, []ttlAt{c, g}, fmt.Sprintf("a get of %s found no value %s before value %s (acknowledged, TTL %s) could expire, beyond the slack %s",
						key, early.Round(time.Millisecond), c.Value, b.Key, b.Slack))
				})
			}
		}
		r.Counts["keys"]++
		r.Counts["gets"] += len(gets)
	}
	for _, cs := range t.creates {
		for _, c := range cs {
			if c.Outcome != history.OK {
				continue
			}
			r.Counts["values"]++
			for _, w := range t.windows {
				if at := c.WallComplete + int64(b.Key); w[0] <= at && at <= w[1] {
					r.Counts["expiries_in_fault"]++
					break
				}
			}
		}
	}
	if b.Marker > 0 {
		markers(r, t, final)
	}
	if final != nil {
		if why := ttlSettled(final.States); why != "" {
			if unanswered(final.States) {
				r.Unsure("replicas_unread", why, nil)
			} else {
				r.Flag("replica_kept_expired", func() checker.Anomaly {
					a := checker.Anomaly{Description: fmt.Sprintf("after every TTL had passed (%s), %s", time.Unix(0, final.Settled).UTC().Format("15:04:05.000"), why)}
					nodes := make([]string, 0, len(final.Held))
					for node := range final.Held {
						nodes = append(nodes, node)
					}
					sort.Strings(nodes)
					for _, node := range nodes {
						for _, e := range final.Held[node] {
							e.Value = node + " holds " + e.Value
							a.Entries = append(a.Entries, e)
						}
					}
					return a
				})
			}
		}
	} else {
		r.Unsure("replicas_unread", "the TTL bucket's replicas were not read (no "+TTLFile+": the cell stopped before its end)", nil)
	}
	r.Stats = map[string]float64{"latest_read_past_ttl_ms": float64(late.Milliseconds())}
	r.Summarize(fmt.Sprintf("TTL keys broke their TTL (slack %s): %s", b.Slack, countsLine(r.Counts, "expired_read", "live_missing", "marker_missing", "replica_kept_expired")),
		fmt.Sprintf("%d TTL values on %d keys (TTL %s; %d due to expire inside a fault window) read while they lived and not after, within a slack of %s (the latest read %s past a TTL)",
			r.Counts["values"], r.Counts["keys"], b.Key, r.Counts["expiries_in_fault"], b.Slack, late.Round(time.Millisecond)))
	return r.Result
}

// markers checks that every value seen expiring left a marker.
func markers(r *checker.Builder, t ttlOps, final *TTLFinal) {
	// An observer that stopped short of the last sequence has still seen
	// all there is to see once every server holds nothing: what it did
	// not see is gone, and Missing names it.
	if final == nil || !final.Observed && ttlSettled(final.States) != "" {
		why := "the observer did not read the TTL bucket to its end"
		if final != nil && final.Detail != "" {
			why += ": " + final.Detail
		}
		r.Unsure("unobserved", why, nil)
		return
	}
	for key, creates := range t.creates {
		for k, c := range creates {
			if c.Outcome != history.OK || !expiredSeen(t.gets[key], c) {
				continue
			}
			next := uint64(1<<63 - 1)
			for _, n := range creates[k+1:] {
				if n.Outcome == history.OK {
					next = n.Rev
					break
				}
			}
			found := false
			for _, s := range t.seen[key] {
				found = found || s.Reason != "" && s.Seq > c.Rev && s.Seq < next
			}
			r.Counts["expiries_seen"]++
			if gap := missingBetween(final.Missing, c.Rev, next); !found && gap != 0 {
				r.Unsure("unobserved", fmt.Sprintf("value %s of %s expired and no marker for it was seen, but the observer missed sequence %d, "+
					"which may have been it (a marker the key's next value evicts at once)", c.Value, key, gap), nil)
				continue
			}
			if !found {
				r.Flag("marker_missing", func() checker.Anomaly {
					return ttlAnomaly(key, []ttlAt{c}, fmt.Sprintf("value %s of %s (revision %d) expired, and the observer, which read the stream to its end, saw no marker for it before the key's next value",
						c.Value, key, c.Rev))
				})
			}
		}
	}
}

// missingBetween is a sequence the observer missed strictly between lo
// and hi, or 0.
func missingBetween(missing []uint64, lo, hi uint64) uint64 {
	for _, m := range missing {
		if m > lo && m < hi {
			return m
		}
	}
	return 0
}

// expiredSeen says whether a get after create c found the key gone.
func expiredSeen(gets []ttlAt, c ttlAt) bool {
	for _, g := range gets {
		if g.WallInvoke > c.WallComplete && !g.Found {
			return true
		}
	}
	return false
}

func createOf(creates []ttlAt, value string) (ttlAt, bool) {
	for _, c := range creates {
		if c.Value == value {
			return c, true
		}
	}
	return ttlAt{}, false
}

// latestBefore is the last create invoked before t (one client per key:
// it completed before t as well).
func latestBefore(creates []ttlAt, t int64) (ttlAt, bool) {
	var out ttlAt
	ok := false
	for _, c := range creates {
		if c.WallInvoke < t {
			out, ok = c, true
		}
	}
	return out, ok
}

func ttlAnomaly(key string, ops []ttlAt, desc string) checker.Anomaly {
	a := checker.Anomaly{Key: key, Description: desc}
	for _, o := range ops {
		a.Ops = append(a.Ops, checker.OpRef{Index: o.Op})
	}
	return a
}

// ttlSettled says how the servers' states of the TTL bucket fall short of
// settled (every server holding nothing, on one last sequence), or "".
func ttlSettled(states []replicas.Replica) string {
	var last *uint64
	for _, s := range states {
		switch {
		case s.State == nil && s.Error != "":
			return fmt.Sprintf("%s did not report its state: %s", s.Node, s.Error)
		case s.State == nil:
			continue // not one of the stream's peers
		case s.State.Messages > 0:
			return fmt.Sprintf("%s still holds %d messages (sequences %d to %d)", s.Node, s.State.Messages, s.State.FirstSeq, s.State.LastSeq)
		case last == nil:
			last = &s.State.LastSeq
		case *last != s.State.LastSeq:
			return fmt.Sprintf("the servers end at different sequences (%d, and %d on %s)", *last, s.State.LastSeq, s.Node)
		}
	}
	if last == nil {
		return "no server reported a copy of the TTL bucket"
	}
	return ""
}

// unanswered says whether a server did not report its state at all.
func unanswered(states []replicas.Replica) bool {
	for _, s := range states {
		if s.State == nil && s.Error != "" {
			return true
		}
	}
	return len(states) == 0
}

func maxDur(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

func countsLine(counts map[string]int, names ...string) string {
	out := ""
	for _, n := range names {
		if counts[n] > 0 {
			if out != "" {
				out += ", "
			}
			out += fmt.Sprintf("%d %s", counts[n], n)
		}
	}
	return out
}
