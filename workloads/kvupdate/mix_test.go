package kvupdate

import "testing"

func TestParseFlags(t *testing.T) {
	mixes := []struct {
		in   string
		want Mix
		ok   bool
	}{
		{"update:100", Mix{Update: 100}, true},
		{"update:90,delete:5,purge:2,create:3", Mix{Update: 90, Delete: 5, Purge: 2, Create: 3}, true},
		{"delete:1", Mix{Delete: 1}, true},
		{"update:0", Mix{}, false},
		{"update:-1", Mix{}, false},
		{"update", Mix{}, false},
		{"drop:3", Mix{}, false},
		{"update:1,update:2", Mix{}, false},
	}
	for _, c := range mixes {
		got, err := ParseMix(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseMix(%q) = %+v, %v; want %+v ok=%v", c.in, got, err, c.want, c.ok)
		}
		if c.ok {
			if back, err := ParseMix(got.String()); err != nil || back != got {
				t.Errorf("ParseMix(%q.String()=%q) = %+v, %v", c.in, got.String(), back, err)
			}
		}
	}
	hists := []struct {
		in   string
		want History
		ok   bool
	}{{"1", 1, true}, {"64", 64, true}, {"all", KeepAll, true}, {"0", 0, false}, {"65", 0, false}, {"x", 0, false}}
	for _, c := range hists {
		got, err := ParseHistory(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseHistory(%q) = %v, %v", c.in, got, err)
		}
	}
	dists := []struct {
		in string
		ok bool
	}{{"uniform", true}, {"zipf:1.1", true}, {"zipf:1", false}, {"zipf:", false}, {"pareto", false}}
	for _, c := range dists {
		if _, err := ParseKeyDist(c.in); (err == nil) != c.ok {
			t.Errorf("ParseKeyDist(%q): %v, want ok=%v", c.in, err, c.ok)
		}
	}
}

func TestValueEncoding(t *testing.T) {
	for _, size := range []int{0, 3, 6, 64, 1024} {
		b := encodeValue("c3-17", size)
		if size > 6 && len(b) != size {
			t.Errorf("size %d: %d bytes", size, len(b))
		}
		if got := decodeValue(b); got != "c3-17" {
			t.Errorf("size %d: decoded %q", size, got)
		}
	}
	if got := decodeValue([]byte("c3-17 ..x..")); got == "c3-17" {
		t.Errorf("a value with corrupted padding decodes as the id")
	}
}
