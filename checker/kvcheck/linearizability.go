package kvcheck

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
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
type Linearizability struct{ opts checker.Options }

// NewLinearizability returns the porcupine checker.
func NewLinearizability(opts checker.Options) *Linearizability {
	return &Linearizability{opts: opts.WithDefaults()}
}

// Name implements Checker.
func (*Linearizability) Name() string { return NameLinearizability }

// linBatchOps is how many client ops the check builds and decides at a
// time, a batch of whole keys: the model ops and pieces of one batch are
// all it holds besides the history (one key with more ops is a batch of
// its own). A variable so that a test can make batches of one key.
var linBatchOps = 250_000

// Check implements Checker.
func (c *Linearizability) Check(h history.History) checker.Result {
	if r, bad := rejectMalformed(c.Name(), &h); bad {
		return r
	}
	counts := map[string]int{}
	for _, k := range linCounts {
		counts[k] = 0
	}
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
	jg := &linJudge{c: c, ops: h.Ops, model: model, remaining: remaining, counts: counts,
		ex: checker.NewExamples(c.opts.MaxExamples), keyState: map[string]porcupine.CheckResult{}}
	b := newLinBuilder(&h)
	l := newLinLayout(h.Ops, c.opts.Workers)
	ends, largest := l.batches()
	b.arena, b.ptrs, b.valid = make([]linOp, largest), make([]*linOp, largest), make([]bool, largest)
	var keys []string
	for i, end := range ends {
		start := 0
		if i > 0 {
			start = ends[i-1]
		}
		jobs, batchKeys := b.planBatch(l, start, end, c.opts.ChunkOps, c.opts.Workers, counts)
		counts["pieces"] += len(jobs)
		runJobs(model, jobs, c.opts.Workers, remaining)
		jg.judge(jobs)
		keys = append(keys, batchKeys...)
	}
	var unknownKeys []string
	for _, k := range keys {
		if jg.keyState[k] == porcupine.Unknown {
			unknownKeys = append(unknownKeys, k)
		}
	}
	counts[CountKeys] = len(keys)
	counts[CountKeysIllegal], counts[CountKeysUnknown], counts["internal_errors"] = len(jg.illegalKeys), len(unknownKeys), len(jg.internal)
	r := checker.Result{Name: c.Name(), Counts: counts, Anomalies: jg.ex.List(), Files: jg.files, InternalErrors: jg.internal,
		Part: &partState{}}
	partOf(r).list("illegal_keys", jg.illegalKeys)
	c.finish(&r)
	return r
}

// linJudge collects the outcome of the pieces, batch after batch.
type linJudge struct {
	c         *Linearizability
	ops       []history.Op
	model     porcupine.Model
	remaining func() (time.Duration, bool)
	counts    map[string]int
	ex        *checker.Examples
	keyState  map[string]porcupine.CheckResult
	files     []string
	internal  []string
	// illegalKeys in the order their first illegal piece was judged.
	illegalKeys []string
}

// judge counts decided jobs and explains the first illegal piece of each
// key, while examples and visualizations are wanted.
func (jg *linJudge) judge(jobs []linJob) {
	counts, opts := jg.counts, jg.c.opts
	for i := range jobs {
		j := &jobs[i]
		if j.internal != "" {
			jg.internal = append(jg.internal, j.internal)
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
		if j.res == porcupine.Illegal && jg.keyState[j.key] != porcupine.Illegal &&
			(jg.ex.Want(KindNonLinearizable) || len(jg.files) < opts.MaxVisualizations) {
			a, f, bug := jg.c.explain(jg.ops, jg.model, j, len(jg.files) < opts.MaxVisualizations, jg.remaining)
			if bug != "" {
				jg.internal = append(jg.internal, bug)
				j.res = porcupine.Unknown
			} else {
				if f != "" {
					jg.files = append(jg.files, f)
				}
				jg.ex.Add(a)
			}
		}
		switch j.res {
		case porcupine.Illegal:
			counts["pieces_illegal"]++
			if jg.keyState[j.key] != porcupine.Illegal {
				jg.keyState[j.key] = porcupine.Illegal
				jg.illegalKeys = append(jg.illegalKeys, j.key)
			}
		case porcupine.Unknown:
			counts["pieces_unknown"]++
			if jg.keyState[j.key] == "" {
				jg.keyState[j.key] = porcupine.Unknown
			}
		}
	}
}

var linCounts = []string{"ops_checked", "keys", "keys_illegal", "keys_unknown", "pieces", "pieces_illegal",
	"pieces_unknown", "pieces_refuted", "pieces_refuted_confirmed", "pieces_refuted_unconfirmed", "pieces_too_large", "pieces_direct",
	"ops_refuted", "info_never_applicable", "max_piece_ops", "dropped_failed", "dropped_reads", "info_applied",
	"info_not_applied", "info_unresolved", "internal_errors"}

// finish implements finisher: the verdict, reason and summary.
func (c *Linearizability) finish(r *checker.Result) {
	counts := r.Counts
	illegalKeys := slices.Sorted(slices.Values(partOf(*r).lists["illegal_keys"]))
	keys, unknownKeys := counts[CountKeys], counts[CountKeysUnknown]
	settled := ""
	if n := counts["info_applied"] + counts["info_not_applied"]; n > 0 {
		settled = fmt.Sprintf("; %d indeterminate writes settled by the stream", n)
	}
	switch {
	case len(illegalKeys) > 0:
		r.Verdict = checker.Invalid
		r.Summary = fmt.Sprintf("%d of %d keys not linearizable (%s)", len(illegalKeys), keys, listSome(illegalKeys, 5))
		if unknownKeys > 0 {
			r.Summary += fmt.Sprintf("; %d undecided", unknownKeys)
		}
	case len(r.InternalErrors) > 0:
		r.Verdict = checker.Unknown
		r.Reason = fmt.Sprintf("internal error: %s", r.InternalErrors[0])
		r.Summary = fmt.Sprintf("%d of %d keys undecided because of %d internal errors (a checker bug; see internal_errors)",
			unknownKeys, keys, len(r.InternalErrors))
	case unknownKeys > 0:
		r.Verdict = checker.Unknown
		r.Reason = fmt.Sprintf("porcupine did not finish %d of %d keys within %s", unknownKeys, keys, c.opts.Timeout)
		if n := counts["pieces_too_large"]; n > 0 {
			r.Reason = fmt.Sprintf("%d of %d keys undecided: %d pieces exceed %d ops (unsettled indeterminate writes prevent cutting them) or porcupine ran out of time (%s)",
				unknownKeys, keys, n, maxPieceOps, c.opts.Timeout)
		}
		r.Summary = r.Reason + "; none found non-linearizable so far"
	case counts["ops_checked"] == 0:
		r.Verdict, r.Reason = checker.Unknown, "no ops to check"
		r.Summary = r.Reason
	default:
		r.Verdict = checker.Valid
		r.Summary = fmt.Sprintf("all %d keys linearizable (%d ops in %d pieces%s)", keys, counts["ops_checked"], counts["pieces"], settled)
	}
	if n := counts["internal_errors"]; n > 0 && r.Verdict == checker.Invalid {
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
