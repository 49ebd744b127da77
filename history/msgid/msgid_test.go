package msgid

import (
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ID
		bad  bool
	}{
		{"0.1", ID{0, 1}, false},
		{"3.123456789", ID{3, 123456789}, false},
		{"0.0", ID{}, true}, // counters start at 1
		{"", ID{}, true},
		{"1", ID{}, true},
		{"a.1", ID{}, true},
		{"-1.5", ID{}, true},
		{"1.-5", ID{}, true},
		{"99999.1", ID{}, true}, // publisher out of range
	} {
		got, err := Parse(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.bad)
		}
		if !tc.bad && tc.want.String() != tc.in {
			t.Errorf("%v.String() = %q, want %q", tc.want, tc.want.String(), tc.in)
		}
	}
}

func TestSet(t *testing.T) {
	var s Set
	if s.Has(ID{0, 1}) || s.Len() != 0 {
		t.Fatal("zero set not empty")
	}
	for _, id := range []ID{{0, 1}, {0, 64}, {0, 65}, {2, 1000}, {0, 1}} {
		s.Add(id)
	}
	if s.Len() != 4 {
		t.Errorf("Len %d, want 4 (one duplicate)", s.Len())
	}
	if s.Add(ID{0, 64}) {
		t.Error("Add of a present id said new")
	}
	for _, id := range []ID{{0, 1}, {0, 64}, {0, 65}, {2, 1000}} {
		if !s.Has(id) {
			t.Errorf("missing %v", id)
		}
	}
	for _, id := range []ID{{0, 2}, {1, 1}, {2, 999}, {3, 1}, {0, 0}, {-1, 1}} {
		if s.Has(id) {
			t.Errorf("has %v", id)
		}
	}
	if s.Add(ID{0, 0}) || s.Add(ID{-1, 5}) || s.Add(ID{maxPub + 1, 5}) || s.Add(ID{0, maxN + 1}) {
		t.Error("out-of-range id accepted")
	}
}

// The report's scale must verify in bounded memory: 1.5 M ids of one
// publisher plus 1.2 M of four more in a few hundred KiB.
func TestSetMemoryAtSeedScale(t *testing.T) {
	var s Set
	for n := uint64(1); n <= 1_500_000; n++ {
		s.Add(ID{0, n})
	}
	for p := 1; p <= 4; p++ {
		for n := uint64(1); n <= 300_000; n++ {
			s.Add(ID{p, n})
		}
	}
	if s.Len() != 2_700_000 {
		t.Fatalf("Len %d", s.Len())
	}
	if b := s.Bytes(); b > 1<<20 {
		t.Errorf("the set takes %d bytes, want under 1 MiB", b)
	}
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name           string
		acked, read    []ID
		missing, extra uint64
		examples       []ID
	}{
		{"equal", []ID{{0, 1}, {0, 2}, {1, 1}}, []ID{{0, 1}, {0, 2}, {1, 1}}, 0, 0, nil},
		{"empty", nil, nil, 0, 0, nil},
		{"lost one", []ID{{0, 1}, {0, 2}, {0, 3}}, []ID{{0, 1}, {0, 3}}, 1, 0, []ID{{0, 2}}},
		{"lost a publisher", []ID{{0, 1}, {1, 1}, {1, 200}}, []ID{{0, 1}}, 2, 0, []ID{{1, 1}, {1, 200}}},
		{"unacked but stored", []ID{{0, 1}}, []ID{{0, 1}, {0, 2}, {3, 7}}, 0, 2, nil},
		{"both", []ID{{0, 1}, {0, 100}}, []ID{{0, 1}, {0, 99}}, 1, 1, []ID{{0, 100}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a, r Set
			for _, id := range tc.acked {
				a.Add(id)
			}
			for _, id := range tc.read {
				r.Add(id)
			}
			missing, extra, ex := Diff(&a, &r, 10)
			if missing != tc.missing || extra != tc.extra || len(ex) != len(tc.examples) {
				t.Fatalf("Diff = %d missing, %d extra, examples %v; want %d, %d, %v", missing, extra, ex, tc.missing, tc.extra, tc.examples)
			}
			for i := range ex {
				if ex[i] != tc.examples[i] {
					t.Errorf("example %d = %v, want %v", i, ex[i], tc.examples[i])
				}
			}
		})
	}
	// Examples are capped.
	var a, r Set
	for n := uint64(1); n <= 1000; n++ {
		a.Add(ID{0, n})
	}
	if m, _, ex := Diff(&a, &r, 3); m != 1000 || len(ex) != 3 || ex[0] != (ID{0, 1}) {
		t.Errorf("Diff of 1000 missing = %d, %v", m, ex)
	}
}

// Merge is the union, counted once per id, and leaves its argument alone.
func TestMerge(t *testing.T) {
	var a, b, empty Set
	for _, id := range []ID{{0, 1}, {0, 2}, {2, 70}} {
		a.Add(id)
	}
	for _, id := range []ID{{0, 2}, {1, 1}, {2, 500}, {3, 64}} {
		b.Add(id)
	}
	a.Merge(&b)
	a.Merge(&empty)
	if a.Len() != 6 || b.Len() != 4 {
		t.Fatalf("union of 3 and 4 sharing one: Len %d (want 6), argument %d (want 4)", a.Len(), b.Len())
	}
	for _, id := range []ID{{0, 1}, {0, 2}, {2, 70}, {1, 1}, {2, 500}, {3, 64}} {
		if !a.Has(id) {
			t.Errorf("union lacks %v", id)
		}
	}
	if b.Has(ID{0, 1}) || a.Has(ID{1, 2}) {
		t.Error("ids appeared from nowhere")
	}
	empty.Merge(&b)
	if empty.Len() != 4 || !empty.Has(ID{3, 64}) {
		t.Errorf("merged into an empty set: Len %d", empty.Len())
	}
}
