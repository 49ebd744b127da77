package counter

import (
	"fmt"
	"sort"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// CheckReads is the reads check's name.
const CheckReads = "counter-reads"

// Reads is counter-reads, for a cell whose deltas are all positive, so a
// counter only grows: a read never returns less than a total already
// acknowledged to the reader's own client (read-your-writes) or already
// read by it (monotonic). "Already" is the project's rule: the add or read
// ended strictly before this read began. A read through Direct Get may be
// answered by a follower behind the leader: its violation is a stale read
// (stale_read), the kind kv-update counts for Direct Get; through the
// leader it is read_your_writes or monotonic. A leader read below only an
// earlier read that Direct Get answered is behind_direct: a replica served
// an add before the leader applied it (seen on v2.15.3 under kill, the add
// still in flight), so a client mixing the paths sees its counter go back.
func Reads(adds []Add, reads []Read, maxExamples int) checker.Result {
	b := checker.NewBuilder(CheckReads, maxExamples)
	type key struct {
		client  int
		counter string
	}
	acks := map[key][]Add{}
	for _, a := range adds {
		if a.Outcome == history.OK && a.Told {
			k := key{a.Client, a.Counter}
			acks[k] = append(acks[k], a)
		}
	}
	byKey := map[key][]Read{}
	for _, r := range reads {
		k := key{r.Client, r.Counter}
		byKey[k] = append(byKey[k], r)
	}
	for k, rs := range byKey {
		own := floors(acks[k], func(a Add) (int64, int64) { return a.Complete, a.Total })
		seen := floors(rs, func(r Read) (int64, int64) { return r.Complete, r.Value })
		var fromLeader []Read
		for _, r := range rs {
			if !r.Direct {
				fromLeader = append(fromLeader, r)
			}
		}
		seenLeader := floors(fromLeader, func(r Read) (int64, int64) { return r.Complete, r.Value })
		for _, r := range rs {
			b.Counts["reads"]++
			if r.Direct {
				b.Counts["direct_reads"]++
			}
			ack, read := own.before(r.Invoke), seen.before(r.Invoke)
			switch {
			case r.Value >= ack.value && r.Value >= read.value:
				continue
			case r.Direct:
				judgeRead(b, "stale_read", r, ack, read)
			case r.Value < ack.value:
				judgeRead(b, "read_your_writes", r, ack, read)
			case r.Value < seenLeader.before(r.Invoke).value:
				judgeRead(b, "monotonic", r, ack, read)
			default:
				judgeRead(b, "behind_direct", r, ack, read)
			}
		}
	}
	b.Summarize(fmt.Sprintf("%d reads went back: %d stale through Direct Get, %d below the client's own acknowledged total, %d below its earlier read from the leader, %d from the leader below its earlier read through Direct Get",
		b.Counts["stale_read"]+b.Counts["read_your_writes"]+b.Counts["monotonic"]+b.Counts["behind_direct"], b.Counts["stale_read"],
		b.Counts["read_your_writes"], b.Counts["monotonic"], b.Counts["behind_direct"]),
		fmt.Sprintf("%d reads (%d through Direct Get), none below what the client was told or had read", b.Counts["reads"], b.Counts["direct_reads"]))
	return b.Result
}

func judgeRead(b *checker.Builder, kind string, r Read, ack, read floor) {
	b.Flag(kind, func() checker.Anomaly {
		via := "the leader"
		if r.Direct {
			via = "Direct Get"
		}
		s := fmt.Sprintf("client %d read counter %s as %d through %s (connected to %s)", r.Client, r.Counter, r.Value, via, r.Node)
		if r.Value < ack.value {
			s += fmt.Sprintf(", after its own add was acknowledged with a total of %d", ack.value)
		}
		if r.Value < read.value {
			s += fmt.Sprintf(", after it had read %d through %s", read.value, map[bool]string{true: "Direct Get", false: "the leader"}[read.direct])
		}
		a := checker.Anomaly{Key: r.Counter, Description: s}
		for _, i := range []int{ack.op, read.op, r.Op} {
			if i >= 0 {
				a.Ops = append(a.Ops, checker.OpRef{Index: i})
			}
		}
		return a
	})
}

// floor is the highest value known by a time, and the op that made it known.
type floor struct {
	value  int64
	op     int
	direct bool // a read through Direct Get made it known
}

// floorSeq is a client's known values by the time they became known, with
// the running maximum.
type floorSeq struct {
	at  []int64
	max []floor
}

func floors[T any](xs []T, known func(T) (at, value int64)) floorSeq {
	type ev struct {
		at, value int64
		op        int
		direct    bool
	}
	evs := make([]ev, len(xs))
	for i, x := range xs {
		at, v := known(x)
		r, isRead := any(x).(Read)
		evs[i] = ev{at, v, opOf(x), isRead && r.Direct}
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].at < evs[j].at })
	var f floorSeq
	best := floor{value: -1 << 62, op: -1}
	for _, e := range evs {
		if e.value > best.value {
			best = floor{e.value, e.op, e.direct}
		}
		f.at, f.max = append(f.at, e.at), append(f.max, best)
	}
	return f
}

// before is the highest value known strictly before t.
func (f floorSeq) before(t int64) floor {
	i := sort.Search(len(f.at), func(i int) bool { return f.at[i] >= t })
	if i == 0 {
		return floor{value: -1 << 62, op: -1}
	}
	return f.max[i-1]
}

func opOf(x any) int {
	switch v := x.(type) {
	case Add:
		return v.Op
	case Read:
		return v.Op
	}
	return -1
}
