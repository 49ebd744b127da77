package kvcheck

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
)

// Seams for the tests that show a disagreement between the interval bounds
// and porcupine, or between two porcupine runs, is reported as an internal
// error: they replace these with versions that lie.
var (
	narrow      = tighten
	searchPiece = porcupine.CheckOperationsTimeout
	linearize   = linearizeByRevision // off in the tests that need porcupine to see a piece
)

// linJob is one piece of one key to decide.
type linJob struct {
	key     string
	n       int // piece number within the key
	pieces  int // pieces of the key
	piece   []*linOp
	all     [][]*linOp // every piece of the key
	res     porcupine.CheckResult
	refuted *refutation // an op of the piece that tighten proved cannot be placed
	// confirmed is porcupine's answer on a refuted piece: on the witness
	// (see witness), else on the whole piece.
	confirmed   porcupine.CheckResult
	confirmedOn []*linOp // the ops porcupine found illegal
	internal    string   // a disagreement, reported as an internal error
	tooLarge    bool     // over maxPieceOps: too large for porcupine
	direct      bool     // decided legal by linearizeByRevision, without a search
}

// planKey narrows one key's model ops and cuts them into jobs, tallying in
// counts (one worker's: see planBatch).
func planKey(k string, built []*linOp, chunkOps int, counts map[string]int) []linJob {
	ops, rs := narrow(built)
	counts["info_never_applicable"] += len(built) - len(ops)
	var refuted map[*linOp]*refutation // most keys have none: no map
	if len(rs) > 0 {
		refuted = make(map[*linOp]*refutation, len(rs))
	}
	for i := range rs {
		if refuted[rs[i].op] == nil {
			refuted[rs[i].op] = &rs[i]
		}
	}
	counts["ops_refuted"] += len(refuted)
	pieces := chunkKey(ops, chunkOps)
	jobs := make([]linJob, 0, len(pieces))
	for n, p := range pieces {
		for _, o := range p[1:] {
			o.piece = int32(n + 1)
		}
		j := linJob{key: k, n: n, pieces: len(pieces), piece: p, all: pieces}
		j.tooLarge = len(p) > maxPieceOps
		for _, o := range p {
			if r := refuted[o]; r != nil && (j.refuted == nil || o.call < j.refuted.op.call) {
				j.refuted, j.res = r, ""
			}
		}
		if j.refuted != nil {
			counts["pieces_refuted"]++
		}
		jobs = append(jobs, j)
		counts["max_piece_ops"] = max(counts["max_piece_ops"], len(p)-1)
	}
	return jobs
}

// forEach calls f(w, i) for every i in [0, n) on up to workers goroutines,
// w being the worker's number. A worker's panic is raised again on the
// caller's goroutine, where Guard turns it into an unknown verdict; in a
// worker it would end the process.
func forEach(n, workers int, f func(w, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var panicked atomic.Value // a worker's panic, raised again below
	for w := 0; w < max(1, min(workers, n)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					panicked.CompareAndSwap(nil, fmt.Sprint(p))
				}
			}()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(w, i)
			}
		}()
	}
	wg.Wait()
	if p := panicked.Load(); p != nil {
		panic("linearizability worker: " + p.(string))
	}
}

// runJobs decides the jobs in parallel: first the pieces the interval
// bounds did not refute (by the order their revisions dictate when it is a
// linearization, else by porcupine), then porcupine's confirmation of the
// refuted ones, so that confirmations never take the time the others need.
func runJobs(model porcupine.Model, jobs []linJob, workers int, remaining func() (time.Duration, bool)) {
	for _, confirming := range []bool{false, true} {
		forEach(len(jobs), workers, func(_, i int) {
			j := &jobs[i]
			switch {
			case j.res != "" || (j.refuted != nil) != confirming:
			case confirming:
				confirm(model, j, remaining)
			case linearize(j.piece):
				j.res, j.direct = porcupine.Ok, true
			case j.tooLarge:
				j.res = porcupine.Unknown
			default:
				d, ok := remaining()
				if !ok {
					j.res = porcupine.Unknown
					return
				}
				j.res = searchPiece(model, toOperations(j.piece, false), d)
			}
		})
	}
}

// confirm has porcupine check a piece the interval bounds refuted, each
// run capped at explainBound. Porcupine finding a linearization is a
// disagreement: an internal error, and the piece stays undecided. When it
// does not finish, the bounds' proof stands alone (pieces_refuted_unconfirmed).
func confirm(model porcupine.Model, j *linJob, remaining func() (time.Duration, bool)) {
	j.confirmed, j.res = porcupine.Unknown, porcupine.Illegal
	for _, ops := range [][]*linOp{witness(j.all, j.refuted), j.piece} {
		d, ok := remaining()
		if !ok {
			return
		}
		if d == 0 || d > explainBound {
			d = explainBound
		}
		switch searchPiece(model, toOperations(ops, false), d) {
		case porcupine.Illegal:
			j.confirmed, j.confirmedOn = porcupine.Illegal, ops
			return
		case porcupine.Ok:
			if len(ops) < len(j.piece) {
				continue // the witness leaves out ops: only the piece can disagree
			}
			j.confirmed, j.res = porcupine.Ok, porcupine.Unknown
			r := j.refuted
			j.internal = fmt.Sprintf("key %s piece %d of %d: the interval bounds refute client %d's %s (line %d): %s; but porcupine finds a linearization of the piece",
				j.key, j.n+1, j.pieces, r.op.client, describeOp(r.op, nil), r.op.line, r.why)
			return
		}
	}
}
