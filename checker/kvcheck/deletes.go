package kvcheck

import (
	"fmt"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// NameDeletes is the delete, purge and create check's name.
const NameDeletes = "deletes"

// Deletes' counts.
const (
	CountMarkers            = "markers"
	CountDeleteNotHonoured  = "delete_not_honoured"
	CountResurrectedRead    = "resurrected_read"
	CountCreateOverLiveKey  = "create_over_live_key"
	CountUnverifiedCreates  = "unverified_creates"
	CountCreatesAfterMarker = "creates_after_marker"
	CountUnverifiedDeletes  = "unverified_deletes"
	CountUnconfirmedDeletes = "unconfirmed_deletes"
	CountSettledMarkers     = "settled_markers"
)

// DeletesAnomalies are the deletes check's anomaly counts, in the order its
// summary names them.
func DeletesAnomalies() []string {
	return []string{CountResurrectedRead, CountDeleteNotHonoured, CountCreateOverLiveKey}
}

// Deletes judges what delete and purge markers promise, and what a create
// promises, directly (porcupine judges them too, as part of the model):
//
//   - resurrected_read: a get invoked after a delete or purge of its key
//     was acknowledged (the marker's ack strictly before the get's invoke)
//     returned a value older than that marker;
//   - delete_not_honoured: the stream read back after the heal holds, for
//     a key, a value older than a stored marker of that key, and no newer
//     message of the key: the value survived its delete;
//   - create_over_live_key: an acknowledged create whose key's previous
//     message (the newest known one below the create's revision, in the
//     stream as observed or from a stored write) is a value, not a marker:
//     a create must fail on a live key. Where an indeterminate marker of
//     the key that nothing settled could sit between them, the create is
//     counted as unverified instead.
//
// A stored write is an acknowledged one, at its revision, or an
// indeterminate one that the stream or a get settled as applied, at the
// revision they show (resolveInfo, as the other checks settle it). An
// indeterminate write nothing settled may or may not have happened: it
// can leave a create unverified, never make one invalid.
//
// A read-back that was not read in full cannot show a value surviving its
// delete, nor always that none did. It is read in sequence order from the
// stream's first message (kv-update reads it with an ordered consumer,
// which nats.go's jetstream/ordered.go recreates past the last message it
// delivered when one goes missing), so it holds every message up to the
// highest sequence it reached (Final.Reached). A key's markers are shown
// honoured when the read-back holds a message of the key at or after the
// newest of them, or reached past it holding no older value of the key
// last. For a key whose newest message read back is a value older than
// that marker (unverified_deletes: the marker may be among the messages
// not read), or that it holds nothing of at or after a marker it did not
// reach (unconfirmed_deletes: nothing of the key read back, or an older
// marker, while an older value may survive unread), the verdict is
// unknown unless an anomaly is found; the other two judgements do not
// need the read-back.
//
// Counts: markers (acknowledged), settled_markers (indeterminate ones
// settled as stored), creates_after_marker (acknowledged creates over a
// marker), unverified_creates, unverified_deletes, unconfirmed_deletes,
// and the three anomalies.
type Deletes struct {
	opts  checker.Options
	final Final
}

// NewDeletes returns the delete/purge/create checker; final is the
// read-back after the heal.
func NewDeletes(opts checker.Options, final Final) *Deletes {
	return &Deletes{opts: opts.WithDefaults(), final: final}
}

// Name implements Checker.
func (*Deletes) Name() string { return NameDeletes }

// Check implements Checker.
func (c *Deletes) Check(h history.History) checker.Result {
	ops := h.Ops
	counts := map[string]int{CountMarkers: 0, CountDeleteNotHonoured: 0, CountResurrectedRead: 0,
		CountCreateOverLiveKey: 0, CountUnverifiedCreates: 0, CountCreatesAfterMarker: 0, CountUnverifiedDeletes: 0,
		CountUnconfirmedDeletes: 0, CountSettledMarkers: 0}
	ex := checker.NewExamples(c.opts.MaxExamples)
	perKey, keys := byKey(ops)
	si := newStreamIndex(&h)
	info := resolveInfo(ops, si, h.StreamComplete)
	streamByKey := map[string][]int32{}
	for ei := range si.entries {
		streamByKey[si.entries[ei].Key] = append(streamByKey[si.entries[ei].Key], int32(ei))
	}
	finalLast := map[string]history.Entry{}
	reached := c.final.Reached // how far the read-back is known to have gone
	for _, e := range c.final.Entries {
		if cur, ok := finalLast[e.Key]; !ok || e.Seq > cur.Seq {
			finalLast[e.Key] = e
		}
		reached = max(reached, e.Seq)
	}
	for _, k := range keys {
		idx := perKey[k]
		var acked []int32    // acknowledged markers
		var markers []stored // acknowledged or settled markers
		var unsettled []int32
		for _, i := range idx {
			o := &ops[i]
			if !o.IsMarker() {
				continue
			}
			rev, ok := storedAt(o, info[i])
			switch {
			case ok:
				markers = append(markers, stored{i, rev})
				if o.Outcome == history.OK {
					acked = append(acked, i)
				}
			case o.Outcome == history.Info && info[i].how == resUnresolved:
				unsettled = append(unsettled, i)
			}
		}
		counts[CountMarkers] += len(acked)
		counts[CountSettledMarkers] += len(markers) - len(acked)
		c.resurrected(ops, idx, acked, counts, ex)
		c.notHonoured(ops, info, markers, finalLast[k], reached, counts, ex)
		c.creates(ops, idx, info, si, streamByKey[k], unsettled, counts, ex)
	}
	return deletesResult(c.Name(), counts, ex)
}

// stored is a write op known to be stored at rev (see storedAt).
type stored struct {
	op  int32
	rev uint64
}

// storedAt is the revision at which write o is known to be stored, false
// when it may not have been: an acknowledged write's own, or the one at
// which the stream or a get settled an indeterminate write (r, from
// resolveInfo).
func storedAt(o *history.Op, r infoWrite) (uint64, bool) {
	switch {
	case o.Outcome == history.OK && o.Rev > 0:
		return o.Rev, true
	case o.Outcome == history.Info && (r.how == resStream || r.how == resObserved):
		return r.rev, true
	}
	return 0, false
}

// storedHow says how write o came to be known stored at rev.
func storedHow(o *history.Op, r infoWrite, rev uint64) string {
	if o.Outcome == history.OK {
		return fmt.Sprintf("acknowledged at revision %d", rev)
	}
	return fmt.Sprintf("left indeterminate (%s) and %s at revision %d", o.Err, r.how, rev)
}

// resurrected finds gets that returned a value older than a marker
// acknowledged before they were invoked.
func (c *Deletes) resurrected(ops []history.Op, idx, markers []int32, counts map[string]int, ex *checker.Examples) {
	if len(markers) == 0 {
		return
	}
	sort.Slice(markers, func(a, b int) bool { return ops[markers[a]].Complete < ops[markers[b]].Complete })
	// best[j]: the marker of highest revision among markers[:j+1].
	best := make([]int32, len(markers))
	for j, m := range markers {
		best[j] = m
		if j > 0 && ops[best[j-1]].Rev > ops[m].Rev {
			best[j] = best[j-1]
		}
	}
	for _, i := range idx {
		g := &ops[i]
		if g.Type != history.Get || g.Outcome != history.OK || g.Err == history.ErrNotFound || g.Rev == 0 {
			continue
		}
		j := sort.Search(len(markers), func(j int) bool { return ops[markers[j]].Complete >= g.Invoke }) - 1
		if j < 0 {
			continue
		}
		m := &ops[best[j]]
		if g.Rev < m.Rev {
			counts[CountResurrectedRead]++
			ex.Add(checker.Anomaly{Kind: CountResurrectedRead, Key: g.Key, Ops: refs(ops, int(best[j]), int(i)),
				Description: fmt.Sprintf("client %d get %s (node %s, invoked at %.3fms) returned value %q at revision %d, although client %d's %s at revision %d had been acknowledged %.3fms earlier",
					g.Client, g.Key, nodeName(g.Node), ms(g.Invoke), g.Value, g.Rev, m.Client, m.Type, m.Rev, ms(g.Invoke-m.Complete))})
		}
	}
}

// notHonoured: the read-back's newest message of the key, last, is a
// value older than a stored marker. In a read-back not read in full the
// marker may be among the messages not read (unverified); one that holds
// nothing of the key at or after its newest marker, and stopped before
// it (reached: the highest sequence it is known to have reached),
// confirms nothing (unconfirmed). One that holds nothing of the key, or
// an older marker last, up to the marker or past it holds no value the
// markers should have removed.
func (c *Deletes) notHonoured(ops []history.Op, info map[int32]infoWrite, markers []stored, last history.Entry, reached uint64,
	counts map[string]int, ex *checker.Examples) {
	worst := -1
	for j, m := range markers {
		if m.rev > last.Seq && (worst < 0 || m.rev > markers[worst].rev) {
			worst = j
		}
	}
	switch {
	case worst < 0:
		return // every marker at or before what was read back
	case last.Seq == 0 || last.Operation != "":
		if !c.final.Complete && markers[worst].rev > reached {
			counts[CountUnconfirmedDeletes]++
		}
		return
	case !c.final.Complete:
		counts[CountUnverifiedDeletes]++
		return
	}
	w := markers[worst]
	m := &ops[w.op]
	counts[CountDeleteNotHonoured]++
	ex.Add(checker.Anomaly{Kind: CountDeleteNotHonoured, Key: m.Key, Ops: refs(ops, int(w.op)), Entries: []history.Entry{last},
		Description: fmt.Sprintf("client %d's %s of %s was %s, but after the heal the stream's newest message of %s is the older value %q at seq %d",
			m.Client, m.Type, m.Key, storedHow(m, info[w.op], w.rev), m.Key, last.Value, last.Seq)})
}

// creates checks every acknowledged create against the key's previous
// known message: a stored write's (named when it is known) or the stream's.
func (c *Deletes) creates(ops []history.Op, idx []int32, info map[int32]infoWrite, si *streamIndex, inStream, unsettled []int32,
	counts map[string]int, ex *checker.Examples) {
	type known struct {
		seq    uint64
		marker bool
		op     int32 // -1: from the stream only
	}
	var ks []known
	for _, i := range idx {
		o := &ops[i]
		if !o.IsWrite() {
			continue
		}
		if rev, ok := storedAt(o, info[i]); ok {
			ks = append(ks, known{rev, o.IsMarker(), i})
		}
	}
	for _, ei := range inStream {
		e := &si.entries[ei]
		ks = append(ks, known{e.Seq, e.Operation != "", -1})
	}
	// A stream entry sorts before a write at its sequence: the write, the
	// one picked, is named.
	sort.Slice(ks, func(a, b int) bool { return ks[a].seq < ks[b].seq || (ks[a].seq == ks[b].seq && ks[a].op < ks[b].op) })
	for _, i := range idx {
		o := &ops[i]
		if o.Type != history.Create || o.Outcome != history.OK || o.Rev == 0 {
			continue
		}
		p := sort.Search(len(ks), func(j int) bool { return ks[j].seq >= o.Rev }) - 1
		if p < 0 {
			continue // the key's first message
		}
		prev := ks[p]
		if prev.marker {
			counts[CountCreatesAfterMarker]++
			continue
		}
		if markerMayBeBetween(ops, unsettled, o) {
			counts[CountUnverifiedCreates]++
			continue
		}
		d := fmt.Sprintf("client %d's create of %s was acknowledged at revision %d, but the key's previous message, seq %d, is a value: a create must fail on a live key",
			o.Client, o.Key, o.Rev, prev.seq)
		if prev.op >= 0 {
			p := &ops[prev.op]
			d += fmt.Sprintf(" (client %d's %s of %q, %s)", p.Client, p.Type, p.Value, storedHow(p, info[prev.op], prev.seq))
		}
		counts[CountCreateOverLiveKey]++
		ex.Add(checker.Anomaly{Kind: CountCreateOverLiveKey, Key: o.Key, Ops: refs(ops, int(prev.op), int(i)), Description: d})
	}
}

// markerMayBeBetween: an unsettled marker of the key invoked before the
// create completed might have landed just before it.
func markerMayBeBetween(ops []history.Op, unsettled []int32, create *history.Op) bool {
	for _, u := range unsettled {
		if ops[u].Invoke <= create.Complete {
			return true
		}
	}
	return false
}

func deletesResult(name string, counts map[string]int, ex *checker.Examples) checker.Result {
	r := checker.Result{Name: name, Counts: counts, Anomalies: ex.List(), Part: &partState{}}
	deletesFinish(&r)
	return r
}

// finish implements finisher.
func (c *Deletes) finish(r *checker.Result) { deletesFinish(r) }

func deletesFinish(r *checker.Result) {
	counts := r.Counts
	var found []string
	for _, k := range DeletesAnomalies() {
		if counts[k] > 0 {
			found = append(found, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	switch {
	case len(found) > 0:
		r.Verdict = checker.Invalid
		r.Summary = strings.Join(found, ", ") + fmt.Sprintf(" (%d acknowledged markers)", counts[CountMarkers])
	case counts[CountUnverifiedCreates] > 0 || counts[CountUnverifiedDeletes] > 0 || counts[CountUnconfirmedDeletes] > 0:
		r.Verdict = checker.Unknown
		r.Reason = deletesUndecided(counts)
		r.Summary = r.Reason
	default:
		r.Verdict = checker.Valid
		settled := ""
		if n := counts[CountSettledMarkers]; n > 0 {
			settled = fmt.Sprintf(", %d indeterminate ones settled as stored", n)
		}
		r.Summary = fmt.Sprintf("every delete and purge honoured (%d acknowledged markers%s), no read resurrected a deleted key, %d creates over markers, none over a live key",
			counts[CountMarkers], settled, counts[CountCreatesAfterMarker])
	}
}

// deletesUndecided says what the check could not decide, and why.
func deletesUndecided(counts map[string]int) string {
	var why []string
	if n := counts[CountUnverifiedCreates]; n > 0 {
		why = append(why, fmt.Sprintf("%d acknowledged creates follow a value with an unsettled marker possibly between", n))
	}
	if n := counts[CountUnverifiedDeletes]; n > 0 {
		why = append(why, fmt.Sprintf("for %d key(s) the newest message read back is a value older than a marker known stored, "+
			"but the read-back was not read in full: the marker may be among the messages not read, so whether the value survived its delete cannot be decided", n))
	}
	if n := counts[CountUnconfirmedDeletes]; n > 0 {
		why = append(why, fmt.Sprintf("for %d key(s) with a marker known stored, the read-back, not read in full, stopped before the marker holding no message of the key at or after it, "+
			"so whether an older value survived its delete among the messages not read cannot be decided", n))
	}
	return strings.Join(why, "; ")
}
