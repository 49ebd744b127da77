package kvcheck

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Attribution explains every wrong-last-sequence rejection of an update
// (Err wrong_last_seq, 10071, or wrong_last_seq_inflight, 10164).
//
// The update expected revision E; the get that supplied E is the client's
// latest ok get of that key before the update. Each rejection is put in
// exactly one class, tried in this order:
//
//   - stale_read: a version newer than E had been acknowledged before that
//     get was invoked, so the get itself was stale (the seed's case).
//   - concurrent_write: a version newer than E exists, acknowledged or
//     visible in the stream (an indeterminate write found there counts),
//     that was not acknowledged when the get was invoked and whose writer
//     does not follow the update (it was invoked before the update completed
//     or at that instant): it raced. With an incomplete stream an unresolved
//     indeterminate write to the key counts too. So does E's own write when
//     the get ended at the instant the update was invoked (a tie: the update
//     may have gone first) and E's write was not acknowledged before the
//     update was invoked.
//   - spurious: neither. E was still the key's latest revision and nothing
//     else wrote the key: the server rejected a current revision.
//
// A rejection whose client has no earlier ok get of the key, or whose get
// returned another revision than E, is unattributed.
//
// Verdict: invalid if any rejection is stale_read, or spurious with 10071
// (the server named another last sequence although E was current); unknown
// if some are unattributed; valid otherwise. Concurrent rejections are
// correct behaviour, and so, by its definition, is a spurious 10164: the
// leader answers it, without a sequence, whenever a write to the subject is
// in flight or it has unapplied entries, even when the revision was current
// (nats-server jetstream_cluster.go, JSStreamWrongLastSequenceConstantErr
// in jetstream_errors_generated.go). Those are counted and named in the
// summary, because they are errors a single writer cannot explain, but they
// are not an anomaly.
//
// Counts: rejections, stale_read, concurrent_write, spurious, unattributed,
// and each split by code as <class>_<code> (e.g. stale_read_10071), plus
// rejections_<code> and errseq_equals_expected (10071 rejections whose
// reported last sequence is the very revision the update expected).
type Attribution struct{ opts checker.Options }

// NewAttribution returns the wrong-last-sequence attribution checker.
func NewAttribution(opts checker.Options) *Attribution {
	return &Attribution{opts: opts.WithDefaults()}
}

// Name implements Checker.
func (*Attribution) Name() string { return NameAttribution }

const (
	clsStale      = CountRejectedStale
	clsConcurrent = CountRejectedConcur
	clsSpurious   = CountRejectedSpurious
	clsUnknown    = CountUnattributed
)

type rejection struct {
	upd, src int32 // the rejected update, the get that supplied E (-1: none)
}

// version is a revision of a key that exists or may exist.
type version struct {
	rev    uint64
	invoke int64 // writer's invoke time; MinInt64 when nobody wrote it
	acked  int64 // writer's complete time if acknowledged, else MaxInt64 (it may have taken effect any time)
	writer int32 // -1 when nobody wrote it
	entry  int32 // stream entry, -1 if not seen there
}

// keyVersions answers the two questions the classes need for one key.
type keyVersions struct {
	acked      []int32 // ok writes sorted by revision
	ackMin     []int32 // ackMin[i]: the earliest-acknowledged of acked[i:]
	vers       []version
	verMin     []int32 // verMin[i]: index of the earliest-invoked of vers[i:]
	unresolved []int64 // invoke times of unresolved indeterminate writes, sorted
}

// Check implements Checker.
func (c *Attribution) Check(h history.History) checker.Result {
	if r, bad := rejectMalformed(c.Name(), &h); bad {
		return r
	}
	ops := h.Ops
	perClient, clients := byClient(ops)
	var rejs []rejection
	for _, cl := range clients {
		last := map[string]int32{}
		for _, i := range perClient[cl] {
			o := &ops[i]
			switch {
			case o.Type == history.Get && o.Outcome == history.OK:
				last[o.Key] = i
			case o.Type == history.Update && o.Outcome == history.Fail &&
				(o.Err == history.ErrWrongLastSeq || o.Err == history.ErrWrongLastSeqAny):
				src, ok := last[o.Key]
				if !ok {
					src = -1
				}
				rejs = append(rejs, rejection{upd: i, src: src})
			}
		}
	}
	counts := map[string]int{CountRejections: len(rejs), clsStale: 0, clsConcurrent: 0, clsSpurious: 0, clsUnknown: 0,
		"errseq_equals_expected": 0}
	ex := checker.NewExamples(c.opts.MaxExamples)
	if len(rejs) > 0 {
		kv := buildVersions(&h, rejs)
		for _, rj := range rejs {
			u := &ops[rj.upd]
			code := errCode(u)
			cls, a := classify(ops, kv[u.Key], rj, ex)
			counts[cls]++
			counts[fmt.Sprintf("%s_%d", cls, code)]++
			counts[fmt.Sprintf("rejections_%d", code)]++
			if u.Err == history.ErrWrongLastSeq && u.ErrSeq != 0 && u.ErrSeq == u.ExpectedRev {
				counts["errseq_equals_expected"]++
			}
			if a != nil {
				ex.Add(*a)
			}
		}
	}
	r := checker.Result{Name: c.Name(), Counts: counts, Anomalies: ex.List(), Part: &partState{}}
	c.finish(&r)
	return r
}

// finish implements finisher.
func (c *Attribution) finish(r *checker.Result) {
	counts := r.Counts
	r.Summary = attributionSummary(counts)
	switch {
	case counts[clsStale] > 0 || counts[clsSpurious+"_10071"] > 0:
		r.Verdict = checker.Invalid
	case counts[clsUnknown] > 0:
		r.Verdict = checker.Unknown
		r.Reason = fmt.Sprintf("%d rejections have no get that supplied the expected revision", counts[clsUnknown])
	default:
		r.Verdict = checker.Valid
	}
}

func attributionSummary(counts map[string]int) string {
	n := counts["rejections"]
	if n == 0 {
		return "no wrong-last-sequence rejections"
	}
	var codes []string
	for k, v := range counts {
		if strings.HasPrefix(k, "rejections_") {
			codes = append(codes, fmt.Sprintf("%s: %d", strings.TrimPrefix(k, "rejections_"), v))
		}
	}
	sort.Strings(codes)
	s := fmt.Sprintf("%d wrong-last-sequence rejections (%s): %d stale_read, %d concurrent_write, %d spurious",
		n, strings.Join(codes, ", "), counts[clsStale], counts[clsConcurrent], counts[clsSpurious])
	if u := counts[clsUnknown]; u > 0 {
		s += fmt.Sprintf(", %d unattributed", u)
	}
	if sp := counts[clsSpurious+"_10164"]; sp > 0 && sp == counts[clsSpurious] {
		s += " (10164 is the leader refusing while a write is in flight: expected, not an anomaly)"
	}
	return s
}

// buildVersions indexes the versions of the keys that saw rejections.
func buildVersions(h *history.History, rejs []rejection) map[string]*keyVersions {
	ops := h.Ops
	kv := map[string]*keyVersions{}
	for _, rj := range rejs {
		k := ops[rj.upd].Key
		if kv[k] == nil {
			kv[k] = &keyVersions{}
		}
	}
	si := newStreamIndex(h)
	info := resolveInfo(ops, si, h.StreamComplete)
	writerOf := map[string]int32{} // value -> write op, for the keys above
	for i := range ops {
		o := &ops[i]
		if !isClientOp(o) || !o.IsWrite() {
			continue
		}
		k := kv[o.Key]
		if k == nil {
			continue
		}
		if _, seen := writerOf[o.Value]; !seen || o.Outcome == history.OK {
			writerOf[o.Value] = int32(i)
		}
		switch o.Outcome {
		case history.OK:
			if o.Rev > 0 {
				k.acked = append(k.acked, int32(i))
				k.vers = append(k.vers, version{rev: o.Rev, invoke: o.Invoke, acked: o.Complete, writer: int32(i), entry: -1})
			}
		case history.Info:
			switch res := info[int32(i)]; res.how {
			case resStream, resObserved:
				k.vers = append(k.vers, version{rev: res.rev, invoke: o.Invoke, acked: math.MaxInt64, writer: int32(i), entry: -1})
			case resUnresolved:
				k.unresolved = append(k.unresolved, o.Invoke)
			}
		}
	}
	// Stream entries nobody acknowledged: applied indeterminate or failed
	// writes, and values nobody wrote.
	for ei := range si.entries {
		e := &si.entries[ei]
		k := kv[e.Key]
		if k == nil || (e.Operation != "" && e.Value == "") {
			continue
		}
		v := version{rev: e.Seq, invoke: math.MinInt64, acked: math.MaxInt64, writer: -1, entry: int32(ei)}
		if w, ok := writerOf[e.Value]; ok && ops[w].Key == e.Key {
			if ops[w].Outcome == history.OK && ops[w].Rev == e.Seq {
				continue // already there as an acknowledged write
			}
			v.invoke, v.writer = ops[w].Invoke, w
		}
		k.vers = append(k.vers, v)
	}
	for _, k := range kv {
		sort.Slice(k.acked, func(a, b int) bool { return ops[k.acked[a]].Rev < ops[k.acked[b]].Rev })
		k.ackMin = make([]int32, len(k.acked))
		for i := len(k.acked) - 1; i >= 0; i-- {
			k.ackMin[i] = k.acked[i]
			if i+1 < len(k.acked) && ops[k.ackMin[i+1]].Complete < ops[k.acked[i]].Complete {
				k.ackMin[i] = k.ackMin[i+1]
			}
		}
		sort.Slice(k.vers, func(a, b int) bool { return k.vers[a].rev < k.vers[b].rev })
		k.verMin = make([]int32, len(k.vers))
		for i := len(k.vers) - 1; i >= 0; i-- {
			k.verMin[i] = int32(i)
			if i+1 < len(k.vers) && k.vers[k.verMin[i+1]].invoke < k.vers[i].invoke {
				k.verMin[i] = k.verMin[i+1]
			}
		}
		sort.Slice(k.unresolved, func(a, b int) bool { return k.unresolved[a] < k.unresolved[b] })
	}
	return kv
}

// classify puts one rejection in its class and, when an example of that
// class is still wanted, describes it.
func classify(ops []history.Op, k *keyVersions, rj rejection, ex *checker.Examples) (string, *checker.Anomaly) {
	u := &ops[rj.upd]
	e := u.ExpectedRev
	desc := func(cls, what string, idx ...int) *checker.Anomaly {
		if !ex.Want(cls) {
			return nil
		}
		errs := fmt.Sprintf("%d", errCode(u))
		if u.Err == history.ErrWrongLastSeq && u.ErrSeq != 0 {
			errs += fmt.Sprintf(" (last sequence %d)", u.ErrSeq)
		}
		return &checker.Anomaly{Kind: cls, Key: u.Key, Ops: refs(ops, idx...),
			Description: fmt.Sprintf("client %d update %s expecting revision %d was rejected with %s: %s",
				u.Client, u.Key, e, errs, what)}
	}
	if rj.src < 0 {
		return clsUnknown, desc(clsUnknown, "the client had no earlier successful get of the key", int(rj.upd))
	}
	g := &ops[rj.src]
	if g.Rev != e {
		return clsUnknown, desc(clsUnknown, fmt.Sprintf("the client's latest get returned revision %d, not %d", g.Rev, e),
			int(rj.src), int(rj.upd))
	}
	// stale_read: a newer version acknowledged before the get was invoked.
	if i := sort.Search(len(k.acked), func(i int) bool { return ops[k.acked[i]].Rev > e }); i < len(k.acked) {
		w := k.ackMin[i]
		if precedes(ops[w].Complete, g.Invoke) {
			return clsStale, desc(clsStale, fmt.Sprintf("its get (node %s) returned revision %d although revision %d (client %d) had been acknowledged %.3fms before the get was invoked",
				nodeName(g.Node), e, ops[w].Rev, ops[w].Client, ms(g.Invoke-ops[w].Complete)), int(rj.src), int(w), int(rj.upd))
		}
	}
	// concurrent_write: a newer version whose writer started before the
	// update completed.
	if i := sort.Search(len(k.vers), func(i int) bool { return k.vers[i].rev > e }); i < len(k.vers) {
		v := k.vers[k.verMin[i]]
		if v.writer == rj.upd { // the rejected update's own value is in the stream
			v = version{invoke: math.MaxInt64}
			for _, x := range k.vers[i:] {
				if x.writer != rj.upd && x.invoke < v.invoke {
					v = x
				}
			}
		}
		if !precedes(u.Complete, v.invoke) {
			what := fmt.Sprintf("revision %d was written concurrently", v.rev)
			switch {
			case v.writer < 0:
				what = fmt.Sprintf("revision %d, a value nobody wrote, is in the stream", v.rev)
			case ops[v.writer].Outcome == history.OK:
				what = fmt.Sprintf("revision %d (client %d) was written concurrently and acknowledged %.3fms after the get was invoked",
					v.rev, ops[v.writer].Client, ms(ops[v.writer].Complete-g.Invoke))
			default:
				what = fmt.Sprintf("revision %d (client %d, outcome %s) was applied without being acknowledged",
					v.rev, ops[v.writer].Client, ops[v.writer].Outcome)
			}
			return clsConcurrent, desc(clsConcurrent, what, int(rj.src), int(v.writer), int(rj.upd))
		}
	}
	// The get ended at the very instant the update was invoked, so it does
	// not precede the update: the update may have taken effect first, and if
	// revision e's own write may not have taken effect by then either, the
	// key may still have held an older revision.
	if !precedes(g.Complete, u.Invoke) {
		i := sort.Search(len(k.vers), func(i int) bool { return k.vers[i].rev >= e })
		if i == len(k.vers) || k.vers[i].rev != e || !precedes(k.vers[i].acked, u.Invoke) {
			w := -1
			if i < len(k.vers) && k.vers[i].rev == e {
				w = int(k.vers[i].writer)
			}
			return clsConcurrent, desc(clsConcurrent, fmt.Sprintf("its get ended as it was invoked, and revision %d's write was not known to have taken effect before the update was invoked", e),
				int(rj.src), w, int(rj.upd))
		}
	}
	if len(k.unresolved) > 0 && !precedes(u.Complete, k.unresolved[0]) {
		return clsConcurrent, desc(clsConcurrent, "an indeterminate write to the key, which the incomplete stream cannot settle, may have raced it",
			int(rj.src), int(rj.upd))
	}
	return clsSpurious, desc(clsSpurious, fmt.Sprintf("revision %d was still the key's latest and nothing else wrote the key", e),
		int(rj.src), int(rj.upd))
}
