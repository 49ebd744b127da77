// Package msgid gives every message a workload publishes a unique id, in
// the Chaos-Id header, and keeps sets of them in bounded memory: the ids
// acknowledged to the publishers against the ids read back from a stream
// (ReadBack), so a workload's check can name every acknowledged message
// that is missing and every message stored although its publish failed.
// It is the floor of every stream workload's loss and duplicate checks.
package msgid

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// An id is the publisher's index and its own counter, "p.n", n counting
// from 1. Ids are sequential per publisher, so a set of them is one bitmap
// per publisher: a 6 GB stream of 4 KiB messages (1.5 M ids) takes under
// 200 KiB, and verifying a multi-GB stream never holds more than two sets.

// Header is the header that carries a message's id.
const Header = "Chaos-Id"

// ID is one message id: publisher Pub's N-th message.
type ID struct {
	Pub int    `json:"pub"`
	N   uint64 `json:"n"`
}

// String is the id as the header carries it, "p.n".
func (id ID) String() string { return strconv.Itoa(id.Pub) + "." + strconv.FormatUint(id.N, 10) }

// Parse reads a Chaos-Id header value.
func Parse(s string) (ID, error) {
	p, n, ok := strings.Cut(s, ".")
	pub, err1 := strconv.Atoi(p)
	num, err2 := strconv.ParseUint(n, 10, 64)
	if !ok || err1 != nil || err2 != nil || pub < 0 || pub > maxPub || num == 0 {
		return ID{}, fmt.Errorf("malformed %s %q", Header, s)
	}
	return ID{pub, num}, nil
}

// maxPub bounds publisher indices, so a corrupt header cannot make a set
// allocate a huge outer slice.
const maxPub = 1 << 10

// maxN bounds counters for the same reason: 2^34 ids is 2 GiB of bitmap.
const maxN = 1 << 34

// Set is a set of ids. The zero value is empty and ready. It is not safe
// for concurrent use.
type Set struct {
	pubs [][]uint64
	n    uint64
}

// Add puts id in the set and says whether it was new. Ids out of range
// (see Parse) are refused with false.
func (s *Set) Add(id ID) bool {
	if id.Pub < 0 || id.Pub > maxPub || id.N == 0 || id.N > maxN {
		return false
	}
	for len(s.pubs) <= id.Pub {
		s.pubs = append(s.pubs, nil)
	}
	w, b := id.N/64, id.N%64
	words := s.pubs[id.Pub]
	if uint64(len(words)) <= w {
		// Grow geometrically: ids arrive in order, one word at a time.
		grown := make([]uint64, max(w+1, uint64(len(words))*2))
		copy(grown, words)
		words = grown
		s.pubs[id.Pub] = words
	}
	if words[w]&(1<<b) != 0 {
		return false
	}
	words[w] |= 1 << b
	s.n++
	return true
}

// Merge adds every id of o to s (o is left as it was): one set out of each
// publisher's own, once publishing has stopped.
func (s *Set) Merge(o *Set) {
	for len(s.pubs) < len(o.pubs) {
		s.pubs = append(s.pubs, nil)
	}
	for p, ow := range o.pubs {
		if len(s.pubs[p]) < len(ow) {
			grown := make([]uint64, len(ow))
			copy(grown, s.pubs[p])
			s.pubs[p] = grown
		}
		for i, w := range ow {
			s.n += uint64(bits.OnesCount64(w &^ s.pubs[p][i]))
			s.pubs[p][i] |= w
		}
	}
}

// Has reports whether id is in the set.
func (s *Set) Has(id ID) bool {
	if id.Pub < 0 || id.Pub >= len(s.pubs) || id.N == 0 {
		return false
	}
	w, b := id.N/64, id.N%64
	words := s.pubs[id.Pub]
	return uint64(len(words)) > w && words[w]&(1<<b) != 0
}

// Len is the number of ids in the set.
func (s *Set) Len() uint64 { return s.n }

// Bytes is the memory the bitmaps take, for the record.
func (s *Set) Bytes() int {
	n := 0
	for _, w := range s.pubs {
		n += 8 * cap(w)
	}
	return n
}

// Diff compares want (acknowledged ids) with got (ids read back): missing
// are in want and not in got, extra in got and not in want (published but
// never acknowledged: failed or timed-out publishes that were stored, which
// is allowed). It keeps at most maxExamples missing ids as examples.
func Diff(want, got *Set, maxExamples int) (missing, extra uint64, examples []ID) {
	for p := 0; p < max(len(want.pubs), len(got.pubs)); p++ {
		var w, g []uint64
		if p < len(want.pubs) {
			w = want.pubs[p]
		}
		if p < len(got.pubs) {
			g = got.pubs[p]
		}
		for i := 0; i < max(len(w), len(g)); i++ {
			var wi, gi uint64
			if i < len(w) {
				wi = w[i]
			}
			if i < len(g) {
				gi = g[i]
			}
			miss := wi &^ gi
			missing += uint64(bits.OnesCount64(miss))
			extra += uint64(bits.OnesCount64(gi &^ wi))
			for miss != 0 && len(examples) < maxExamples {
				b := bits.TrailingZeros64(miss)
				examples = append(examples, ID{p, uint64(i)*64 + uint64(b)})
				miss &^= 1 << b
			}
		}
	}
	return missing, extra, examples
}
