package counter

// maxSums bounds the sums a subset-sum search keeps: past it the search
// gives up, and the check says so rather than guess. A variable so that a
// test reaches the bound in moments.
var maxSums = 1 << 20

// subsetSums is every sum of a subset of deltas (0 included), or ok false
// when there are more than maxSums of them.
func subsetSums(deltas []int64) (sums map[int64]bool, ok bool) {
	sums = map[int64]bool{0: true}
	for _, d := range deltas {
		if d == 0 {
			continue
		}
		next := make(map[int64]bool, 2*len(sums))
		for s := range sums {
			next[s], next[s+d] = true, true
		}
		if len(next) > maxSums {
			return nil, false
		}
		sums = next
	}
	return sums, true
}
