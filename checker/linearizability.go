package checker

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Linearizability checks each key's history against the KV model in
// model.go with porcupine (github.com/anishathalye/porcupine).
//
// Indeterminate writes are settled with the stream, as etcd's robustness
// tests do: a value found in the stream at seq S happened at revision S
// (and before the first acknowledgement of any write with a higher
// revision, since sequences are assigned in commit order); a value absent
// from a complete stream never happened and is dropped; otherwise (an
// incomplete stream, and no get returned the value) it stays open-ended:
// maybe applied, at an unknown revision, any time after its invoke.
// Definitely failed ops that constrain nothing (10164, no responders, other
// errors) and failed or indeterminate gets are dropped.
//
// Each key's intervals are first narrowed to what the revisions imply, which
// keeps porcupine from stalling on hot keys and proves many anomalies
// outright (see bounds.go); then the key is cut into pieces at points where
// its state is known (see chunkKey) and the pieces are decided in parallel
// within Options.Timeout: legal when the order their revisions dictate is
// a linearization (see direct.go), else by porcupine. No step changes the
// verdict. A
// piece the bounds refute is then checked by porcupine too (a witness of
// the ops in conflict first, then the whole piece): if porcupine finds a
// linearization, that disagreement is an internal error (Result.
// InternalErrors) and the key is undecided; if it does not finish in time
// the bounds' proof stands and the summary says so. For the first
// non-linearizable piece of a key, up to Options.MaxVisualizations
// porcupine HTML files are written to Options.OutDir.
//
// Counts: ops_checked, keys, keys_illegal, keys_unknown, pieces,
// pieces_illegal, pieces_unknown, pieces_refuted (pieces the interval
// bounds of bounds.go prove illegal), pieces_refuted_confirmed (porcupine
// agreed), pieces_refuted_unconfirmed (porcupine did not finish),
// pieces_too_large (over maxPieceOps and not decided directly, left
// unknown), pieces_direct (legal by the revision order, no search), ops_refuted,
// max_piece_ops, dropped_failed, dropped_reads, info_applied,
// info_not_applied, info_unresolved, info_never_applicable (unresolved
// updates or creates that started after their expected state was gone:
// dropped), internal_errors.
type Linearizability struct{ opts Options }

// NewLinearizability returns the porcupine checker.
func NewLinearizability(opts Options) *Linearizability {
	return &Linearizability{opts: opts.withDefaults()}
}

// Name implements Checker.
func (*Linearizability) Name() string { return NameLinearizability }

// buildLinOps turns the history into model ops, grouped by key, and
// tallies what it dropped and how indeterminate writes were settled.
func buildLinOps(h *history.History, counts map[string]int) map[string][]*linOp {
	ops := h.Ops
	si := newStreamIndex(h)
	info := resolveInfo(ops, si, h.StreamComplete)

	// bound[i]: the earliest ack of an ok write with revision >= revs[i].
	type ack struct {
		rev uint64
		at  int64
	}
	var acks []ack
	for i := range ops {
		o := &ops[i]
		if isClientOp(o) && o.IsWrite() && o.Outcome == history.OK {
			acks = append(acks, ack{o.Rev, o.Complete})
		}
	}
	sort.Slice(acks, func(a, b int) bool { return acks[a].rev < acks[b].rev })
	for i := len(acks) - 2; i >= 0; i-- {
		acks[i].at = min(acks[i].at, acks[i+1].at)
	}
	returnBound := func(rev uint64, invoke int64) int64 {
		i := sort.Search(len(acks), func(i int) bool { return acks[i].rev > rev })
		if i == len(acks) || acks[i].at < invoke {
			return math.MaxInt64
		}
		return acks[i].at
	}

	all := make([]linOp, 0, len(ops))
	perKey := map[string][]*linOp{}
	for i := range ops {
		o := &ops[i]
		if !isClientOp(o) || o.Key == "" {
			continue
		}
		l := linOp{client: int32(o.Client), idx: int32(i), key: o.Key, value: o.Value,
			expected: o.ExpectedRev, rev: o.Rev, call: o.Invoke, ret: o.Complete, ocall: o.Invoke, oret: o.Complete}
		switch o.Type {
		case history.Get:
			if o.Outcome != history.OK {
				counts["dropped_reads"]++
				continue
			}
			l.kind = kGet
			if o.Err == history.ErrNotFound || o.Rev == 0 {
				l.out = oNotFound
			}
		case history.Update, history.Put, history.Create, history.Delete, history.Purge:
			l.kind = kUpdate
			switch o.Type {
			case history.Put:
				l.kind = kPut
			case history.Create:
				l.kind = kCreate
			case history.Delete, history.Purge:
				l.kind = kDelete
			}
			switch o.Outcome {
			case history.OK:
				l.out = oOK
			case history.Fail:
				switch {
				case o.Type == history.Update && o.Err == history.ErrWrongLastSeq:
					l.out = oWrongSeq
				case o.Type == history.Create && (o.Err == history.ErrKeyExists || o.Err == history.ErrWrongLastSeq):
					l.out = oExists
				default: // allowed in any state: nothing to check
					counts["dropped_failed"]++
					continue
				}
			default:
				r := info[int32(i)]
				l.res = r.how
				switch r.how {
				case resStream, resObserved:
					counts["info_applied"]++
					l.out, l.rev = oOK, r.rev
					l.ret = returnBound(r.rev, o.Invoke)
				case resNotApplied:
					counts["info_not_applied"]++
					continue
				default:
					counts["info_unresolved"]++
					l.out, l.ret = oUnknown, math.MaxInt64
				}
			}
		default:
			continue
		}
		l.call, l.ret = scaleCall(l.call, l.isWrite() && (l.out == oOK || l.out == oUnknown)), scaleRet(l.ret)
		all = append(all, l)
		p := &all[len(all)-1]
		perKey[o.Key] = append(perKey[o.Key], p)
	}
	counts["ops_checked"] = len(all)
	return perKey
}

// Check implements Checker.
func (c *Linearizability) Check(h history.History) Result {
	if r, bad := rejectMalformed(c.Name(), &h); bad {
		return r
	}
	counts := map[string]int{}
	for _, k := range linCounts {
		counts[k] = 0
	}
	perKey := buildLinOps(&h, counts)
	keys := make([]string, 0, len(perKey))
	for k := range perKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	jobs := planJobs(perKey, keys, c.opts.ChunkOps, counts)
	counts[CountKeys], counts["pieces"] = len(keys), len(jobs)

	var deadline time.Time
	if c.opts.Timeout > 0 {
		deadline = time.Now().Add(c.opts.Timeout)
	}
	remaining := func() (time.Duration, bool) {
		if deadline.IsZero() {
			return 0, true // porcupine reads 0 as no bound
		}
		d := time.Until(deadline)
		return d, d > 0
	}
	model := kvPieceModel()
	runJobs(model, jobs, c.opts.Workers, remaining)

	ex := newExamples(c.opts.MaxExamples)
	var files, illegalKeys, unknownKeys, internal []string
	keyState := map[string]porcupine.CheckResult{}
	for i := range jobs {
		j := &jobs[i]
		if j.internal != "" {
			internal = append(internal, j.internal)
		}
		if j.direct {
			counts["pieces_direct"]++
		} else if j.tooLarge && j.refuted == nil {
			counts["pieces_too_large"]++
		}
		if j.refuted != nil && j.confirmed == porcupine.Illegal {
			counts["pieces_refuted_confirmed"]++
		} else if j.refuted != nil && j.confirmed == porcupine.Unknown {
			counts["pieces_refuted_unconfirmed"]++
		}
		if j.res == porcupine.Illegal && keyState[j.key] != porcupine.Illegal &&
			(ex.want("non_linearizable") || len(files) < c.opts.MaxVisualizations) {
			a, f, bug := c.explain(h.Ops, model, j, len(files) < c.opts.MaxVisualizations, remaining)
			if bug != "" {
				internal = append(internal, bug)
				j.res = porcupine.Unknown
			} else {
				if f != "" {
					files = append(files, f)
				}
				ex.add(a)
			}
		}
		switch j.res {
		case porcupine.Illegal:
			counts["pieces_illegal"]++
			if keyState[j.key] != porcupine.Illegal {
				keyState[j.key] = porcupine.Illegal
				illegalKeys = append(illegalKeys, j.key)
			}
		case porcupine.Unknown:
			counts["pieces_unknown"]++
			if keyState[j.key] == "" {
				keyState[j.key] = porcupine.Unknown
			}
		}
	}
	for _, k := range keys {
		if keyState[k] == porcupine.Unknown {
			unknownKeys = append(unknownKeys, k)
		}
	}
	counts[CountKeysIllegal], counts[CountKeysUnknown], counts["internal_errors"] = len(illegalKeys), len(unknownKeys), len(internal)
	r := Result{Name: c.Name(), Counts: counts, Anomalies: ex.list, Files: files, InternalErrors: internal}
	c.verdict(&r, keys, illegalKeys, unknownKeys)
	return r
}

var linCounts = []string{"ops_checked", "keys", "keys_illegal", "keys_unknown", "pieces", "pieces_illegal",
	"pieces_unknown", "pieces_refuted", "pieces_refuted_confirmed", "pieces_refuted_unconfirmed", "pieces_too_large", "pieces_direct",
	"ops_refuted", "info_never_applicable", "max_piece_ops", "dropped_failed", "dropped_reads", "info_applied",
	"info_not_applied", "info_unresolved", "internal_errors"}

// verdict fills in the verdict, reason and summary.
func (c *Linearizability) verdict(r *Result, keys, illegalKeys, unknownKeys []string) {
	counts := r.Counts
	settled := ""
	if n := counts["info_applied"] + counts["info_not_applied"]; n > 0 {
		settled = fmt.Sprintf("; %d indeterminate writes settled by the stream", n)
	}
	switch {
	case len(illegalKeys) > 0:
		r.Verdict = Invalid
		r.Summary = fmt.Sprintf("%d of %d keys not linearizable (%s)", len(illegalKeys), len(keys), listSome(illegalKeys, 5))
		if len(unknownKeys) > 0 {
			r.Summary += fmt.Sprintf("; %d undecided", len(unknownKeys))
		}
	case len(r.InternalErrors) > 0:
		r.Verdict = Unknown
		r.Reason = fmt.Sprintf("internal error: %s", r.InternalErrors[0])
		r.Summary = fmt.Sprintf("%d of %d keys undecided because of %d internal errors (a checker bug; see internal_errors)",
			len(unknownKeys), len(keys), len(r.InternalErrors))
	case len(unknownKeys) > 0:
		r.Verdict = Unknown
		r.Reason = fmt.Sprintf("porcupine did not finish %d of %d keys within %s", len(unknownKeys), len(keys), c.opts.Timeout)
		if n := counts["pieces_too_large"]; n > 0 {
			r.Reason = fmt.Sprintf("%d of %d keys undecided: %d pieces exceed %d ops (unsettled indeterminate writes prevent cutting them) or porcupine ran out of time (%s)",
				len(unknownKeys), len(keys), n, maxPieceOps, c.opts.Timeout)
		}
		r.Summary = r.Reason + "; none found non-linearizable so far"
	case counts["ops_checked"] == 0:
		r.Verdict, r.Reason = Unknown, "no ops to check"
		r.Summary = r.Reason
	default:
		r.Verdict = Valid
		r.Summary = fmt.Sprintf("all %d keys linearizable (%d ops in %d pieces%s)", len(keys), counts["ops_checked"], counts["pieces"], settled)
	}
	if n := counts["internal_errors"]; n > 0 && r.Verdict == Invalid {
		r.Summary += fmt.Sprintf("; %d internal errors (a checker bug; see internal_errors)", n)
	}
	if n := counts["pieces_refuted_unconfirmed"]; n > 0 {
		r.Summary += fmt.Sprintf("; %d pieces refuted by the interval bounds alone (porcupine did not confirm them in time)", n)
	}
	if u := counts["info_unresolved"]; u > 0 {
		r.Summary += fmt.Sprintf("; %d indeterminate writes left open (stream incomplete)", u)
	}
}

func listSome(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(", and %d more", len(xs)-n)
}

// maxPieceOps is the largest piece handed to porcupine: its search keeps a
// bitset of the piece per step, so memory grows with the square of the size.
const maxPieceOps = 20000
