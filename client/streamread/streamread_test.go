package streamread

import "testing"

// SourceOf reads the origin and its sequence from every shape of the
// header the server writes, and nothing from a header too short or a
// sequence that is not a number.
func TestSourceOf(t *testing.T) {
	cases := []struct {
		h    string
		name string
		seq  uint64
	}{
		{"SRC_O1 17 > >", "SRC_O1", 17},
		{"SRC_O1:abc123 4 SRC.o1.> SRC.all.o1.> SRC.o1.x", "SRC_O1", 4},
		{"SCHED 1 SCHED.target.> >", "SCHED", 1},
		{"SRC_O1", "", 0},
		{"", "", 0},
		{"SRC_O1 x > >", "SRC_O1", 0},
	}
	for _, c := range cases {
		if name, seq := SourceOf(c.h); name != c.name || seq != c.seq {
			t.Errorf("SourceOf(%q) = %q, %d; want %q, %d", c.h, name, seq, c.name, c.seq)
		}
	}
}
