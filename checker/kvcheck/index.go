package kvcheck

import (
	"sort"

	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// byKey groups the indices of client ops by key, in history order, and
// returns the keys sorted.
func byKey(ops []history.Op) (map[string][]int32, []string) {
	m := map[string][]int32{}
	for i := range ops {
		o := &ops[i]
		if !isClientOp(o) || o.Key == "" {
			continue
		}
		m[o.Key] = append(m[o.Key], int32(i))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return m, keys
}

// byClient groups the indices of client ops by client, each sorted by
// invoke time (ties in history order). A client runs one op at a time.
func byClient(ops []history.Op) (map[int][]int32, []int) {
	m := map[int][]int32{}
	for i := range ops {
		o := &ops[i]
		if !isClientOp(o) {
			continue
		}
		m[o.Client] = append(m[o.Client], int32(i))
	}
	clients := make([]int, 0, len(m))
	for c, idx := range m {
		clients = append(clients, c)
		sort.SliceStable(idx, func(a, b int) bool { return ops[idx[a]].Invoke < ops[idx[b]].Invoke })
	}
	sort.Ints(clients)
	return m, clients
}

// streamIndex looks the observed stream up by sequence and by value.
type streamIndex struct {
	entries []history.Entry // sorted by Seq
	byValue map[string]int32
	// dups lists entries whose value already appeared at a lower seq.
	dups []int32
	// tombstones counts del/purge entries.
	tombstones int
}

func newStreamIndex(h *history.History) *streamIndex {
	s := &streamIndex{entries: h.Stream, byValue: make(map[string]int32, len(h.Stream))}
	if !sort.SliceIsSorted(s.entries, func(a, b int) bool { return s.entries[a].Seq < s.entries[b].Seq }) {
		s.entries = append([]history.Entry(nil), h.Stream...)
		sort.SliceStable(s.entries, func(a, b int) bool { return s.entries[a].Seq < s.entries[b].Seq })
	}
	for i := range s.entries {
		e := &s.entries[i]
		if e.Operation != "" {
			s.tombstones++
			if e.Value == "" { // a marker no op of ours named (kvupdate's client names its own)
				continue
			}
		}
		if _, ok := s.byValue[e.Value]; ok {
			s.dups = append(s.dups, int32(i))
			continue
		}
		s.byValue[e.Value] = int32(i)
	}
	return s
}

// at returns the entry with sequence seq.
func (s *streamIndex) at(seq uint64) (*history.Entry, bool) {
	i := sort.Search(len(s.entries), func(i int) bool { return s.entries[i].Seq >= seq })
	if i < len(s.entries) && s.entries[i].Seq == seq {
		return &s.entries[i], true
	}
	return nil, false
}

// value returns the first entry holding v (a value, or a marker's id).
func (s *streamIndex) value(v string) (*history.Entry, bool) {
	i, ok := s.byValue[v]
	if !ok {
		return nil, false
	}
	return &s.entries[i], true
}

// resolution says what became of an indeterminate (info) write.
type resolution uint8

const (
	resUnresolved resolution = iota // may or may not have been applied
	resStream                       // its value is in the stream: applied at that seq
	resObserved                     // a get returned its value: applied at that rev
	resNotApplied                   // the stream is complete and it is not there
)

func (r resolution) String() string {
	switch r {
	case resStream:
		return "applied (found in the stream)"
	case resObserved:
		return "applied (observed by a get)"
	case resNotApplied:
		return "not applied (absent from the complete stream)"
	}
	return "unresolved"
}

type infoWrite struct {
	how resolution
	rev uint64
}

// resolveInfo decides, as etcd's robustness tests do, what each
// indeterminate write did: values are unique, so a value in the stream (or
// returned by a get) says the write happened and at which revision; a value
// absent from a complete stream says it did not.
func resolveInfo(ops []history.Op, s *streamIndex, complete bool) map[int32]infoWrite {
	out := map[int32]infoWrite{}
	pending := map[string]int32{} // value -> op, for those the stream does not settle
	for i := range ops {
		o := &ops[i]
		if !isClientOp(o) || !o.IsWrite() || o.Outcome != history.Info {
			continue
		}
		if e, ok := s.value(o.Value); ok && e.Key == o.Key {
			out[int32(i)] = infoWrite{how: resStream, rev: e.Seq}
			continue
		}
		pending[o.Value] = int32(i)
	}
	if len(pending) > 0 {
		for i := range ops {
			o := &ops[i]
			if o.Type != history.Get || o.Outcome != history.OK || o.Rev == 0 || !isClientOp(o) {
				continue
			}
			if w, ok := pending[o.Value]; ok && ops[w].Key == o.Key {
				out[w] = infoWrite{how: resObserved, rev: o.Rev}
				delete(pending, o.Value)
			}
		}
	}
	for _, w := range pending {
		if complete {
			out[w] = infoWrite{how: resNotApplied}
		} else {
			out[w] = infoWrite{how: resUnresolved}
		}
	}
	return out
}
