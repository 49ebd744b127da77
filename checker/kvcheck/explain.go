package kvcheck

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// explainBound caps each verbose porcupine run made to explain a piece.
const explainBound = 10 * time.Second

// explain re-runs porcupine verbosely on an illegal piece to describe where
// the search got stuck and, if asked, to write the visualization. For a
// refuted piece it re-runs on the ops porcupine confirmed it with. The
// re-run finding a linearization is a disagreement of porcupine with
// itself: explain returns it as bug, and the piece is not illegal.
func (c *Linearizability) explain(hops []history.Op, model porcupine.Model, j *linJob, visualize bool,
	remaining func() (time.Duration, bool)) (a checker.Anomaly, file, bug string) {
	p := j.piece
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, o := range p[1:] {
		first = min(first, o.ocall)
		if o.oret != math.MaxInt64 {
			last = max(last, o.oret)
		}
	}
	a = checker.Anomaly{Kind: KindNonLinearizable, Key: j.key,
		Description: fmt.Sprintf("key %s: the %d ops between %.3fms and %.3fms (piece %d of %d) have no linearization",
			j.key, len(p)-1, ms(first), ms(last), j.n+1, j.pieces)}
	shown := p
	if r := j.refuted; r != nil {
		a.Description += fmt.Sprintf(": client %d's %s (line %d) fits nowhere: %s", r.op.client, describeOp(r.op, nil), r.op.line, r.why)
		idx := []int{int(r.op.idx)}
		for _, o := range r.related {
			if o != nil && o != r.op {
				idx = append(idx, int(o.idx))
			}
		}
		a.Ops = refs(hops, idx...)
		if j.confirmed != porcupine.Illegal {
			a.Description += "; porcupine did not confirm it in the time it had"
			return a, "", ""
		}
		shown = j.confirmedOn
	}
	d, ok := remaining()
	if !ok {
		return a, "", ""
	}
	if d == 0 || d > explainBound {
		d = explainBound
	}
	res, info := porcupine.CheckOperationsVerbose(model, toOperations(shown, true), d)
	switch res {
	case porcupine.Ok:
		return a, "", fmt.Sprintf("key %s piece %d of %d: porcupine found no linearization of %d ops, then found one when re-run to explain it",
			j.key, j.n+1, j.pieces, len(shown)-1)
	case porcupine.Unknown:
		return a, "", ""
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
		return a, "", ""
	}
	if err := os.MkdirAll(c.opts.OutDir, 0o755); err != nil {
		a.Description += fmt.Sprintf(" (visualization not written: %v)", err)
		return a, "", ""
	}
	path := filepath.Join(c.opts.OutDir, fmt.Sprintf("linearizability-%s-%d.html", safeName(j.key), j.n+1))
	if err := porcupine.VisualizePath(model, info, path); err != nil {
		a.Description += fmt.Sprintf(" (visualization not written: %v)", err)
		return a, "", ""
	}
	a.File = path
	return a, path, ""
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
	// where is the piece an op is in (planJobs numbered them), if any.
	where := func(o *linOp) (int, bool) {
		if o == nil {
			return 0, false
		}
		i := int(o.piece) - 1
		return i, i >= 0 && i < len(pieces)
	}
	first, ok := where(r.op)
	if !ok {
		first = 0
	}
	last := first
	keep := map[*linOp]bool{r.op: true}
	for _, o := range r.related {
		if i, ok := where(o); ok {
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
					if bi, ok := where(b); ok && bi >= first && bi <= last {
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
