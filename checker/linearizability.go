package checker

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
// Each key's history is cut into pieces at points where the key's state is
// known (see chunkKey) and porcupine checks the pieces in parallel within
// Options.Timeout. For the first non-linearizable piece of a key, up to
// Options.MaxVisualizations porcupine HTML files are written to
// Options.OutDir.
//
// Counts: ops_checked, keys, keys_illegal, keys_unknown, pieces,
// pieces_illegal, pieces_unknown, max_piece_ops, dropped_failed,
// dropped_reads, info_applied, info_not_applied, info_unresolved.
type Linearizability struct{ opts Options }

// NewLinearizability returns the porcupine checker.
func NewLinearizability(opts Options) *Linearizability {
	return &Linearizability{opts: opts.withDefaults()}
}

// Name implements Checker.
func (*Linearizability) Name() string { return "linearizability" }

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
			expected: o.ExpectedRev, rev: o.Rev, call: o.Invoke, ret: o.Complete}
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
		case history.Update, history.Put, history.Create:
			l.kind = map[history.OpType]opKind{history.Update: kUpdate, history.Put: kPut, history.Create: kCreate}[o.Type]
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
		all = append(all, l)
		p := &all[len(all)-1]
		perKey[o.Key] = append(perKey[o.Key], p)
	}
	counts["ops_checked"] = len(all)
	return perKey
}

type linJob struct {
	key    string
	n      int // piece number within the key
	pieces int // pieces of the key
	piece  []*linOp
	res    porcupine.CheckResult
}

// Check implements Checker.
func (c *Linearizability) Check(h history.History) Result {
	counts := map[string]int{}
	for _, k := range []string{"ops_checked", "keys", "keys_illegal", "keys_unknown", "pieces", "pieces_illegal",
		"pieces_unknown", "max_piece_ops", "dropped_failed", "dropped_reads", "info_applied", "info_not_applied", "info_unresolved"} {
		counts[k] = 0
	}
	perKey := buildLinOps(&h, counts)
	keys := make([]string, 0, len(perKey))
	for k := range perKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var jobs []linJob
	for _, k := range keys {
		pieces := chunkKey(perKey[k], c.opts.ChunkOps)
		for n, p := range pieces {
			jobs = append(jobs, linJob{key: k, n: n, pieces: len(pieces), piece: p})
			counts["max_piece_ops"] = max(counts["max_piece_ops"], len(p)-1)
		}
	}
	counts["keys"], counts["pieces"] = len(keys), len(jobs)

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
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < c.opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1) - 1)
				if j >= len(jobs) {
					return
				}
				d, ok := remaining()
				if !ok {
					jobs[j].res = porcupine.Unknown
					continue
				}
				jobs[j].res = porcupine.CheckOperationsTimeout(model, toOperations(jobs[j].piece, false), d)
			}
		}()
	}
	wg.Wait()

	ex := newExamples(c.opts.MaxExamples)
	var files, illegalKeys, unknownKeys []string
	keyState := map[string]porcupine.CheckResult{}
	for i := range jobs {
		j := &jobs[i]
		switch j.res {
		case porcupine.Illegal:
			counts["pieces_illegal"]++
			if keyState[j.key] == porcupine.Illegal {
				continue
			}
			keyState[j.key] = porcupine.Illegal
			illegalKeys = append(illegalKeys, j.key)
			if ex.want("non_linearizable") || len(files) < c.opts.MaxVisualizations {
				a, f := c.explain(h.Ops, model, j, len(files) < c.opts.MaxVisualizations, remaining)
				if f != "" {
					files = append(files, f)
				}
				ex.add(a)
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
	counts["keys_illegal"], counts["keys_unknown"] = len(illegalKeys), len(unknownKeys)

	r := Result{Name: c.Name(), Counts: counts, Anomalies: ex.list, Files: files}
	settled := ""
	if n := counts["info_applied"] + counts["info_not_applied"]; n > 0 {
		settled = fmt.Sprintf("; %d indeterminate writes settled by the stream", n)
	}
	switch {
	case len(illegalKeys) > 0:
		r.Verdict = Invalid
		r.Summary = fmt.Sprintf("%d of %d keys not linearizable (%s)", len(illegalKeys), len(keys), listSome(illegalKeys, 5))
		if len(unknownKeys) > 0 {
			r.Summary += fmt.Sprintf("; %d undecided in time", len(unknownKeys))
		}
	case len(unknownKeys) > 0:
		r.Verdict = Unknown
		r.Reason = fmt.Sprintf("porcupine did not finish %d of %d keys within %s", len(unknownKeys), len(keys), c.opts.Timeout)
		r.Summary = r.Reason + "; none found non-linearizable so far"
	case counts["ops_checked"] == 0:
		r.Verdict, r.Reason = Unknown, "no ops to check"
		r.Summary = r.Reason
	default:
		r.Verdict = Valid
		r.Summary = fmt.Sprintf("all %d keys linearizable (%d ops in %d pieces%s)", len(keys), counts["ops_checked"], len(jobs), settled)
	}
	if u := counts["info_unresolved"]; u > 0 {
		r.Summary += fmt.Sprintf("; %d indeterminate writes left open (stream incomplete)", u)
	}
	return r
}

func listSome(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(", and %d more", len(xs)-n)
}

// explain re-runs porcupine verbosely on an illegal piece to describe where
// the search got stuck and, if asked, to write the visualization.
func (c *Linearizability) explain(hops []history.Op, model porcupine.Model, j *linJob, visualize bool,
	remaining func() (time.Duration, bool)) (Anomaly, string) {
	p := j.piece
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, o := range p[1:] {
		first = min(first, o.call)
		if o.ret != math.MaxInt64 {
			last = max(last, o.ret)
		}
	}
	a := Anomaly{Kind: "non_linearizable", Key: j.key,
		Description: fmt.Sprintf("key %s: the %d ops between %.3fms and %.3fms (piece %d of %d) have no linearization",
			j.key, len(p)-1, ms(first), ms(last), j.n+1, j.pieces)}
	d, ok := remaining()
	if !ok {
		return a, ""
	}
	ops := toOperations(p, true)
	res, info := porcupine.CheckOperationsVerbose(model, ops, d)
	if res != porcupine.Illegal {
		return a, ""
	}
	var longest []int
	if parts := info.PartialLinearizations(); len(parts) > 0 {
		for _, l := range parts[0] {
			if len(l) > len(longest) {
				longest = l
			}
		}
	}
	var state any = kvState{}
	done := make([]bool, len(p))
	for _, id := range longest {
		_, state = modelStep(state, p[id], nil)
		done[id] = true
	}
	// The ops that could come next: not linearized, invoked before the
	// earliest return among those not linearized.
	var rest []int
	minRet := int64(math.MaxInt64)
	for id := range p {
		if !done[id] {
			rest = append(rest, id)
			minRet = min(minRet, p[id].ret)
		}
	}
	sort.Slice(rest, func(a, b int) bool { return p[rest[a]].call < p[rest[b]].call })
	var idx []int
	if n := len(longest); n > 0 && p[longest[n-1]].idx >= 0 {
		idx = append(idx, int(p[longest[n-1]].idx))
	}
	var cands []string
	for _, id := range rest {
		if p[id].call > minRet || len(cands) == 5 {
			break
		}
		cands = append(cands, fmt.Sprintf("%s (%s)", describeOp(p[id], nil), describeMeta(p[id])))
		idx = append(idx, int(p[id].idx))
	}
	a.Description += fmt.Sprintf("; the longest linearizable prefix has %d of them and leaves the key at %s, where none of the next ops fits: %s",
		max(len(longest)-1, 0), describeState(state), strings.Join(cands, "; "))
	a.Ops = refs(hops, idx...)
	if !visualize || c.opts.OutDir == "" {
		return a, ""
	}
	if err := os.MkdirAll(c.opts.OutDir, 0o755); err != nil {
		a.Description += fmt.Sprintf(" (visualization not written: %v)", err)
		return a, ""
	}
	path := filepath.Join(c.opts.OutDir, fmt.Sprintf("linearizability-%s-%d.html", safeName(j.key), j.n+1))
	if err := porcupine.VisualizePath(model, info, path); err != nil {
		a.Description += fmt.Sprintf(" (visualization not written: %v)", err)
		return a, ""
	}
	a.File = path
	return a, path
}

func safeName(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_' || ch == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}
