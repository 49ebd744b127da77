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
// Each key's intervals are first narrowed to what the revisions imply, which
// keeps porcupine from stalling on hot keys and proves many anomalies
// outright (see bounds.go); then the key is cut into pieces at points where
// its state is known (see chunkKey) and porcupine checks the pieces in
// parallel within Options.Timeout. Neither step changes the verdict. For the first non-linearizable piece of a key, up to
// Options.MaxVisualizations porcupine HTML files are written to
// Options.OutDir.
//
// Counts: ops_checked, keys, keys_illegal, keys_unknown, pieces,
// pieces_illegal, pieces_unknown, pieces_refuted (illegal pieces proved so
// by the interval bounds of bounds.go, without a search), pieces_too_large
// (over maxPieceOps, left unknown), ops_refuted, max_piece_ops,
// dropped_failed, dropped_reads, info_applied, info_not_applied,
// info_unresolved, info_never_applicable (unresolved updates or creates
// that started after their expected state was gone: dropped).
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
		case history.Update, history.Put, history.Create:
			l.kind = kUpdate
			if o.Type == history.Put {
				l.kind = kPut
			} else if o.Type == history.Create {
				l.kind = kCreate
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

type linJob struct {
	key     string
	n       int // piece number within the key
	pieces  int // pieces of the key
	piece   []*linOp
	all     [][]*linOp // every piece of the key
	res     porcupine.CheckResult
	refuted *refutation // an op of the piece that tighten proved cannot be placed
}

// Check implements Checker.
func (c *Linearizability) Check(h history.History) Result {
	if r, bad := rejectMalformed(c.Name(), &h); bad {
		return r
	}
	counts := map[string]int{}
	for _, k := range []string{"ops_checked", "keys", "keys_illegal", "keys_unknown", "pieces", "pieces_illegal",
		"pieces_unknown", "pieces_refuted", "pieces_too_large", "ops_refuted", "info_never_applicable", "max_piece_ops", "dropped_failed", "dropped_reads", "info_applied", "info_not_applied", "info_unresolved"} {
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
		refuted := map[*linOp]*refutation{}
		ops, rs := tighten(perKey[k])
		counts["info_never_applicable"] += len(perKey[k]) - len(ops)
		for i := range rs {
			if refuted[rs[i].op] == nil {
				refuted[rs[i].op] = &rs[i]
			}
		}
		counts["ops_refuted"] += len(refuted)
		pieces := chunkKey(ops, c.opts.ChunkOps)
		for n, p := range pieces {
			j := linJob{key: k, n: n, pieces: len(pieces), piece: p, all: pieces}
			if len(p) > maxPieceOps {
				j.res = porcupine.Unknown
				counts["pieces_too_large"]++
			}
			for _, o := range p {
				if r := refuted[o]; r != nil && (j.refuted == nil || o.call < j.refuted.op.call) {
					j.refuted, j.res = r, porcupine.Illegal
				}
			}
			if j.refuted != nil {
				counts["pieces_refuted"]++
			}
			jobs = append(jobs, j)
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
				if jobs[j].refuted != nil || jobs[j].res != "" {
					continue
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

// maxPieceOps is the largest piece handed to porcupine: its search keeps a
// bitset of the piece per step, so memory grows with the square of the size.
const maxPieceOps = 20000

// explainBound caps each verbose porcupine run made to explain a piece.
const explainBound = 10 * time.Second

// explain re-runs porcupine verbosely on an illegal piece to describe where
// the search got stuck and, if asked, to write the visualization.
func (c *Linearizability) explain(hops []history.Op, model porcupine.Model, j *linJob, visualize bool,
	remaining func() (time.Duration, bool)) (Anomaly, string) {
	p := j.piece
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, o := range p[1:] {
		first = min(first, o.ocall)
		if o.oret != math.MaxInt64 {
			last = max(last, o.oret)
		}
	}
	a := Anomaly{Kind: "non_linearizable", Key: j.key,
		Description: fmt.Sprintf("key %s: the %d ops between %.3fms and %.3fms (piece %d of %d) have no linearization",
			j.key, len(p)-1, ms(first), ms(last), j.n+1, j.pieces)}
	if r := j.refuted; r != nil {
		a.Description += fmt.Sprintf(": client %d's %s (line %d) fits nowhere: %s", r.op.client, describeOp(r.op, nil), r.op.idx+1, r.why)
		idx := []int{int(r.op.idx)}
		for _, o := range r.related {
			if o != nil && o != r.op {
				idx = append(idx, int(o.idx))
			}
		}
		a.Ops = refs(hops, idx...)
	}
	d, ok := remaining()
	if !ok {
		return a, ""
	}
	if d == 0 || d > explainBound {
		d = explainBound
	}
	// For a refuted piece, show porcupine the ops that already conflict: the
	// writes, the gets that bound them and the refuted op. Porcupine proves
	// that small history illegal quickly, where the whole piece could keep
	// it searching; it is a faithful witness, since removing gets and
	// rejections from a linearizable history leaves it linearizable.
	shown := p
	if j.refuted != nil {
		shown = witness(j.all, j.refuted)
	}
	res, info := porcupine.CheckOperationsVerbose(model, toOperations(shown, true), d)
	if res != porcupine.Illegal && j.refuted != nil {
		shown = p
		res, info = porcupine.CheckOperationsVerbose(model, toOperations(shown, true), d)
	}
	if res != porcupine.Illegal {
		return a, ""
	}
	p = shown
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
	for _, r := range a.Ops {
		idx = append(idx, r.Index)
	}
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
	if j.refuted != nil && !samePiece(p, j.piece) {
		a.Description += fmt.Sprintf("; porcupine finds no linearization for just the %d writes and bounding ops around it", len(p)-1)
	}
	a.Description += fmt.Sprintf("; porcupine's longest linearizable prefix has %d ops and leaves the key at %s, where none of the next ops fits: %s",
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

// witness picks the ops that already conflict around a refuted op: from
// the pieces spanning the refuted op and the ops its refutation names, the
// first piece's seed, every pinned write, the ops bounding those writes
// (when within those pieces), the refuted op and the named ops. Dropping
// gets and rejections keeps a linearizable history linearizable, and the
// pieces are cut where the state is known, so if this small history has no
// linearization the key has none either.
func witness(pieces [][]*linOp, r *refutation) []*linOp {
	where := map[*linOp]int{}
	for i, p := range pieces {
		for _, o := range p[1:] {
			where[o] = i
		}
	}
	first, last := where[r.op], where[r.op]
	keep := map[*linOp]bool{r.op: true}
	for _, o := range r.related {
		if i, ok := where[o]; ok {
			first, last = min(first, i), max(last, i)
			keep[o] = true
		}
	}
	out := []*linOp{pieces[first][0]}
	for i := first; i <= last; i++ {
		for _, o := range pieces[i][1:] {
			if o.pinned() {
				keep[o] = true
				for _, b := range o.bind {
					if bi, ok := where[b]; ok && bi >= first && bi <= last {
						keep[b] = true
					}
				}
			}
		}
	}
	for i := first; i <= last; i++ {
		for _, o := range pieces[i][1:] {
			if keep[o] {
				out = append(out, o)
			}
		}
	}
	return out
}

func samePiece(a, b []*linOp) bool { return len(a) == len(b) && len(a) > 0 && a[0] == b[0] }
