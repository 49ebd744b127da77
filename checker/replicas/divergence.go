package replicas

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// NameDivergence is the replica-divergence check's name.
const NameDivergence = "replica-divergence"

// Divergence's counts.
const (
	CountReplicas         = "replicas"
	CountReplicasRead     = "replicas_read"
	CountReplicasDiverged = "replicas_diverged"
	CountStateMismatch    = "state_mismatch"
	CountMissingMsgs      = "missing"
	CountExtraMsgs        = "extra"
	CountDifferentMsgs    = "different"
)

// State is a server's own account of a stream (its /jsz entry).
type State struct {
	Messages uint64 `json:"messages"`
	Bytes    uint64 `json:"bytes"`
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
	Deleted  int    `json:"num_deleted"`
}

// Replica is what one server held of the stream after the heal: its state
// as /jsz reported it and every message read from its own store.
type Replica struct {
	Node     string          `json:"node"`
	State    *State          `json:"state,omitempty"` // nil: /jsz did not answer
	Entries  []history.Entry `json:"-"`
	Complete bool            `json:"complete"` // every message it holds was read
	Error    string          `json:"error,omitempty"`
	// NotReplica says the server holds no copy and is not one of the
	// stream's peers (a stream of fewer replicas than servers): it takes
	// no part in the comparison.
	NotReplica bool `json:"not_replica,omitempty"`
	// CalledCurrent is what the stream's info, answered by its leader at
	// this reading, said of the server: current (the leader itself, or a
	// replica with "current": true) or not. nil: not asked (cells stored
	// before it was) or not named by the info.
	CalledCurrent *bool `json:"called_current,omitempty"`
}

// CheckDivergence compares the replicas of one stream, read after the heal
// when every replica said it was current and no client was writing:
//
//   - state_mismatch: two servers report different first or last
//     sequence, message count, bytes or interior deletes;
//   - per sequence, a replica whose message differs from the majority's
//     is missing it (the others hold it), holds an extra one (the others
//     do not) or holds a different one (key, value or marker). Without a
//     majority every replica that disagrees is counted.
//
// Each diverged replica's first differing sequence is reported. A replica
// that could not be read in full makes the verdict unknown unless a
// difference is found in what was read (sequences above its last read
// message are not compared for it).
//
// Counts: replicas, replicas_read, replicas_diverged, state_mismatch,
// missing, extra, different.
func CheckDivergence(all []Replica, opts checker.Options) checker.Result {
	opts = opts.WithDefaults()
	reps, others := placedReplicas(all)
	r := checker.Result{Name: NameDivergence, Counts: map[string]int{CountReplicas: len(reps), CountReplicasRead: 0,
		CountReplicasDiverged: 0, CountStateMismatch: 0, CountMissingMsgs: 0, CountExtraMsgs: 0, CountDifferentMsgs: 0}}
	ex := checker.NewExamples(opts.MaxExamples)
	var unread []string
	for _, rp := range reps {
		if rp.Complete {
			r.Counts[CountReplicasRead]++
		} else {
			unread = append(unread, fmt.Sprintf("%s (%s)", rp.Node, orText(rp.Error, "read incomplete")))
		}
	}
	r.Counts[CountStateMismatch] = stateMismatches(reps, ex)
	first := compareEntries(reps, r.Counts, ex)
	var diverged []string
	for _, rp := range reps {
		if s, ok := first[rp.Node]; ok {
			diverged = append(diverged, fmt.Sprintf("%s from seq %d", rp.Node, s))
		}
	}
	r.Counts[CountReplicasDiverged] = len(diverged)
	r.Anomalies = ex.List()
	switch {
	case len(diverged) > 0 || r.Counts[CountStateMismatch] > 0:
		r.Verdict = checker.Invalid
		r.Summary = fmt.Sprintf("replicas differ: %d missing, %d extra, %d different messages, %d state mismatches",
			r.Counts[CountMissingMsgs], r.Counts[CountExtraMsgs], r.Counts[CountDifferentMsgs], r.Counts[CountStateMismatch])
		if len(diverged) > 0 {
			r.Summary += "; first difference: " + strings.Join(diverged, ", ")
		}
	case len(reps) < 2:
		r.Verdict, r.Reason = checker.Unknown, fmt.Sprintf("%d replica(s) recorded: nothing to compare", len(reps))
		r.Summary = r.Reason
	case len(unread) > 0:
		r.Verdict = checker.Unknown
		r.Reason = "not every replica could be read: " + strings.Join(unread, ", ")
		r.Summary = fmt.Sprintf("no difference in what was read, but %s", r.Reason)
	default:
		n := 0
		if len(reps) > 0 {
			n = len(reps[0].Entries)
		}
		r.Verdict = checker.Valid
		r.Summary = fmt.Sprintf("all %d replicas hold the same %d messages and report the same state", len(reps), n)
	}
	if len(others) > 0 {
		r.Summary += fmt.Sprintf(" (%s: no copy, not a replica of the stream)", strings.Join(others, ", "))
	}
	return r
}

// placedReplicas splits the servers read into the stream's replicas and
// the names of the others.
func placedReplicas(all []Replica) (reps []Replica, others []string) {
	for _, rp := range all {
		if rp.NotReplica {
			others = append(others, rp.Node)
			continue
		}
		reps = append(reps, rp)
	}
	return reps, others
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// stateMismatches compares each reported state with the first one.
func stateMismatches(reps []Replica, ex *checker.Examples) int {
	var ref *Replica
	n := 0
	for i := range reps {
		rp := &reps[i]
		if rp.State == nil {
			continue
		}
		if ref == nil {
			ref = rp
			continue
		}
		if *rp.State != *ref.State {
			n++
			ex.Add(checker.Anomaly{Kind: CountStateMismatch, Description: fmt.Sprintf("%s reports %s, %s reports %s",
				ref.Node, describeReplicaState(*ref.State), rp.Node, describeReplicaState(*rp.State))})
		}
	}
	return n
}

func describeReplicaState(s State) string {
	return fmt.Sprintf("first %d last %d, %d messages, %d bytes, %d deleted", s.FirstSeq, s.LastSeq, s.Messages, s.Bytes, s.Deleted)
}

// compareEntries finds, sequence by sequence, the replicas that disagree
// with the majority, and returns each one's first differing sequence.
func compareEntries(reps []Replica, counts map[string]int, ex *checker.Examples) map[string]uint64 {
	type slot struct {
		e  history.Entry
		ok bool
	}
	bySeq := map[uint64][]slot{}
	readTo := make([]uint64, len(reps)) // highest sequence read from each replica
	for i, rp := range reps {
		for _, e := range rp.Entries {
			s := bySeq[e.Seq]
			if s == nil {
				s = make([]slot, len(reps))
				bySeq[e.Seq] = s
			}
			s[i] = slot{e, true}
			readTo[i] = max(readTo[i], e.Seq)
		}
		if rp.Complete { // it holds nothing it did not return
			readTo[i] = math.MaxUint64
		}
	}
	seqs := make([]uint64, 0, len(bySeq))
	for s := range bySeq {
		seqs = append(seqs, s)
	}
	sort.Slice(seqs, func(a, b int) bool { return seqs[a] < seqs[b] })
	first := map[string]uint64{}
	for _, seq := range seqs {
		slots := bySeq[seq]
		// Only replicas read up to seq take part; an incomplete one is not
		// judged beyond what it returned.
		tally := map[slot]int{}
		var voters []int
		for i := range reps {
			if seq <= readTo[i] {
				voters = append(voters, i)
				tally[slots[i]]++
			}
		}
		if len(tally) <= 1 {
			continue
		}
		major, tie := majority(tally)
		for _, i := range voters {
			s := slots[i]
			if !tie && s == major {
				continue
			}
			kind := CountDifferentMsgs
			switch {
			case !s.ok:
				kind = CountMissingMsgs
			case !tie && !major.ok:
				kind = CountExtraMsgs
			}
			counts[kind]++
			node := reps[i].Node
			if _, seen := first[node]; !seen {
				first[node] = seq
			}
			if ex.Want(kind) {
				d := fmt.Sprintf("seq %d on %s: %s", seq, node, describeSlot(s.e, s.ok))
				if !tie {
					d += fmt.Sprintf("; the majority holds %s", describeSlot(major.e, major.ok))
				}
				a := checker.Anomaly{Kind: kind, Key: s.e.Key, Description: d}
				if s.ok {
					a.Entries = append(a.Entries, s.e)
				}
				ex.Add(a)
			}
		}
	}
	return first
}

// majority is the most common slot, and whether another is as common.
func majority[S comparable](tally map[S]int) (S, bool) {
	var major S
	best, tie := 0, false
	for s, n := range tally {
		switch {
		case n > best:
			major, best, tie = s, n, false
		case n == best:
			tie = true
		}
	}
	return major, tie
}

func describeSlot(e history.Entry, ok bool) string {
	if !ok {
		return "nothing"
	}
	return e.Describe()
}
