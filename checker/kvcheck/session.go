package kvcheck

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Session checks read-your-writes and monotonic reads per client and key.
//
// A get violates read-your-writes when it returns a revision older than
// that of one of the client's own acknowledged writes to that key which
// precedes it, and monotonic reads when it returns a revision older than one
// returned by an earlier get of the client that precedes it ("precedes" as
// in the package doc: an op that completed at the very instant the get was
// invoked is concurrent with it and does not count). A not-found get counts
// as revision 0. Only ok gets are judged; a get can violate both (it is
// counted under each).
//
// Counts: gets (ok gets judged), ryw_violations, monotonic_violations,
// violating_gets (distinct gets with either), clients, keys.
type Session struct{ opts checker.Options }

// NewSession returns the read-your-writes / monotonic-reads checker.
func NewSession(opts checker.Options) *Session { return &Session{opts: opts.WithDefaults()} }

// Name implements Checker.
func (*Session) Name() string { return NameSession }

type clientKey struct {
	client int
	key    string
}

type sessionState struct {
	wrote, read       uint64 // highest acknowledged write, highest read
	wroteIdx, readIdx int32
}

// Check implements Checker.
func (c *Session) Check(h history.History) checker.Result {
	if r, bad := rejectMalformed(c.Name(), &h); bad {
		return r
	}
	ops := h.Ops
	perClient, clients := byClient(ops)
	st := map[clientKey]*sessionState{}
	state := func(o *history.Op) *sessionState {
		ck := clientKey{o.Client, o.Key}
		s := st[ck]
		if s == nil {
			s = &sessionState{wroteIdx: -1, readIdx: -1}
			st[ck] = s
		}
		return s
	}
	judged := func(o *history.Op) bool {
		return o.Outcome == history.OK && o.Key != "" && (o.Type == history.Get || o.IsWrite())
	}
	ex := checker.NewExamples(c.opts.MaxExamples)
	keys := map[string]bool{}
	var gets, ryw, mono, bad int
	for _, cl := range clients {
		byInvoke := perClient[cl]
		// The client's ops in completion order: an op counts for a later
		// one only once it precedes it (see the package doc on ties).
		byComplete := byInvoke // a client that waits for each op: already in order
		less := func(a, b int) bool { return ops[byComplete[a]].Complete < ops[byComplete[b]].Complete }
		if !sort.SliceIsSorted(byComplete, less) {
			byComplete = append([]int32(nil), byInvoke...)
			sort.SliceStable(byComplete, less)
		}
		done := 0
		for _, i := range byInvoke {
			o := &ops[i]
			for ; done < len(byComplete) && precedes(ops[byComplete[done]].Complete, o.Invoke); done++ {
				p := &ops[byComplete[done]]
				if !judged(p) {
					continue
				}
				s := state(p)
				switch {
				case p.IsWrite() && p.Rev > s.wrote:
					s.wrote, s.wroteIdx = p.Rev, byComplete[done]
				case p.Type == history.Get && p.Rev > s.read:
					s.read, s.readIdx = p.Rev, byComplete[done]
				}
			}
			if !judged(o) {
				continue
			}
			keys[o.Key] = true
			if o.Type != history.Get {
				continue
			}
			gets++
			r, m := judgeGet(ops, i, state(o), ex)
			if r {
				ryw++
			}
			if m {
				mono++
			}
			if r || m {
				bad++
			}
		}
	}
	r := checker.Result{Name: c.Name(), Counts: map[string]int{
		CountGets: gets, CountRYWViolations: ryw, CountMonotonicViolations: mono,
		"violating_gets": bad, "keys": len(keys),
	}, Anomalies: ex.List(), Part: &partState{}}
	ids := make([]string, len(clients))
	for i, cl := range clients {
		ids[i] = strconv.Itoa(cl)
	}
	partOf(r).set("clients", ids)
	c.finish(&r)
	return r
}

// finish implements finisher.
func (c *Session) finish(r *checker.Result) {
	gets, ryw, mono, bad := r.Counts[CountGets], r.Counts[CountRYWViolations], r.Counts[CountMonotonicViolations], r.Counts["violating_gets"]
	r.Counts["clients"] = len(partOf(*r).sets["clients"])
	switch {
	case bad > 0:
		r.Verdict = checker.Invalid
		r.Summary = fmt.Sprintf("%d read-your-writes and %d monotonic-read violations in %d gets (%.3f%%)",
			ryw, mono, gets, pct(bad, gets))
	case gets == 0:
		r.Verdict = checker.Unknown
		r.Reason = "no successful gets to judge"
		r.Summary = "no successful gets to judge"
	default:
		r.Verdict = checker.Valid
		r.Summary = fmt.Sprintf("no read-your-writes or monotonic-read violations in %d gets", gets)
	}
}

// judgeGet reports whether the get at i breaks read-your-writes and
// monotonic reads against s, what its client did before it, and keeps an
// example of each.
func judgeGet(ops []history.Op, i int32, s *sessionState, ex *checker.Examples) (ryw, mono bool) {
	o := &ops[i]
	got := o.Rev // 0 when not found
	if got < s.wrote {
		ryw = true
		if ex.Want(KindReadYourWrites) {
			ex.Add(checker.Anomaly{Kind: KindReadYourWrites, Key: o.Key,
				Description: fmt.Sprintf("client %d read %s at revision %d after its own write of revision %d was acknowledged (%.3fms earlier)",
					o.Client, o.Key, got, s.wrote, ms(o.Invoke-ops[s.wroteIdx].Complete)),
				Ops: refs(ops, int(s.wroteIdx), int(i))})
		}
	}
	if got < s.read {
		mono = true
		if ex.Want(KindMonotonicReads) {
			ex.Add(checker.Anomaly{Kind: KindMonotonicReads, Key: o.Key,
				Description: fmt.Sprintf("client %d read %s at revision %d after it had already read revision %d",
					o.Client, o.Key, got, s.read),
				Ops: refs(ops, int(s.readIdx), int(i))})
		}
	}
	return ryw, mono
}
