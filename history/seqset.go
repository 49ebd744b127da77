package history

import (
	"cmp"
	"math/bits"
	"slices"
	"sync"
)

// SeqSet is a set of stream sequences, one bit each in words of 64 held in
// a map: a few MB for ten million sequences, in any order.
type SeqSet struct {
	words map[uint64]uint64
	n     int
	once  sync.Once
	ranks []seqWord // sorted, built by the first Rank
}

type seqWord struct {
	w, bits uint64
	below   int // sequences in the words before this one
}

// Add adds seq and reports whether it was new. A set is not added to once
// Rank was called.
func (s *SeqSet) Add(seq uint64) bool {
	if s.words == nil {
		s.words = map[uint64]uint64{}
	}
	w, bit := seq/64, uint64(1)<<(seq%64)
	if s.words[w]&bit != 0 {
		return false
	}
	s.words[w] |= bit
	s.n++
	return true
}

// Has reports whether seq is in the set.
func (s *SeqSet) Has(seq uint64) bool { return s.words[seq/64]&(uint64(1)<<(seq%64)) != 0 }

// Len is the number of sequences in the set.
func (s *SeqSet) Len() int { return s.n }

// Rank is the number of sequences in the set below seq.
func (s *SeqSet) Rank(seq uint64) int {
	s.once.Do(func() {
		s.ranks = make([]seqWord, 0, len(s.words))
		for w, bits := range s.words {
			s.ranks = append(s.ranks, seqWord{w: w, bits: bits})
		}
		slices.SortFunc(s.ranks, func(a, b seqWord) int { return cmp.Compare(a.w, b.w) })
		below := 0
		for i := range s.ranks {
			s.ranks[i].below = below
			below += bits.OnesCount64(s.ranks[i].bits)
		}
	})
	w := seq / 64
	i, found := slices.BinarySearchFunc(s.ranks, w, func(x seqWord, w uint64) int { return cmp.Compare(x.w, w) })
	if !found {
		if i == len(s.ranks) {
			return s.n
		}
		return s.ranks[i].below
	}
	x := s.ranks[i]
	return x.below + bits.OnesCount64(x.bits&(uint64(1)<<(seq%64)-1))
}

// ownerPage is how many sequences a page of seqOwners holds.
const ownerPage = 64

// seqOwners maps stream sequences to small numbers (Split: 1 + the part
// whose entry holds the sequence; 0: none), in pages of ownerPage
// sequences made when first written. Its memory grows with the sequences
// set, not with the largest one: a stream may start at any first sequence
// (a dense slice indexed by sequence took 2 TB for one message at 10^12).
// Sequences mostly come in increasing order, so the last page used is
// kept at hand and a run of them needs no map lookup.
type seqOwners struct {
	pages    map[uint64]int // page number (seq/ownerPage) -> offset of its slots
	slots    []uint16
	lastPage uint64
	lastAt   int // 1 + offset of lastPage's slots; 0: none yet
}

// get is what seq was set to, or 0.
func (o *seqOwners) get(seq uint64) uint16 {
	at := o.page(seq/ownerPage, false)
	if at < 0 {
		return 0
	}
	return o.slots[at+int(seq%ownerPage)]
}

// set sets seq to v.
func (o *seqOwners) set(seq uint64, v uint16) {
	o.slots[o.page(seq/ownerPage, true)+int(seq%ownerPage)] = v
}

// page is the offset of page pg's slots, made if create is set, else -1
// when there is none.
func (o *seqOwners) page(pg uint64, create bool) int {
	if o.lastAt != 0 && o.lastPage == pg {
		return o.lastAt - 1
	}
	at, ok := o.pages[pg]
	if !ok {
		if !create {
			return -1
		}
		if o.pages == nil {
			o.pages = map[uint64]int{}
		}
		at = len(o.slots)
		o.slots = slices.Grow(o.slots, ownerPage)[:at+ownerPage]
		clear(o.slots[at:])
		o.pages[pg] = at
	}
	o.lastPage, o.lastAt = pg, at+1
	return at
}
