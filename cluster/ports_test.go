package cluster

import (
	"reflect"
	"testing"
)

func TestPortRange(t *testing.T) {
	cases := []struct {
		in     string
		lo, hi int
	}{
		{"32768\t60999\n", 10000, 32768},
		{"11000 60999", 61000, 65536},
		{"1024 65535", 1024, 65536},
		{"", 20000, 30000},
		{"60999 32768", 20000, 30000},
	}
	for _, c := range cases {
		if lo, hi := portRange(c.in); lo != c.lo || hi != c.hi {
			t.Errorf("portRange(%q) = %d, %d; want %d, %d", c.in, lo, hi, c.lo, c.hi)
		}
	}
}

func TestPickPorts(t *testing.T) {
	seq := func(vals ...int) func(int) int { // a scripted "random" source
		return func(int) int { v := vals[0]; vals = vals[1:]; return v }
	}
	cases := []struct {
		name    string
		n       int
		free    func(int) bool
		intn    func(int) int
		want    []int
		wantErr bool
	}{
		{"distinct", 3, func(int) bool { return true }, seq(0, 0, 5, 5, 7), []int{100, 105, 107}, false},
		{"skips busy", 2, func(p int) bool { return p != 101 }, seq(1, 2, 3), []int{102, 103}, false},
		{"gives up", 2, func(int) bool { return false }, func(int) int { return 0 }, nil, true},
	}
	for _, c := range cases {
		got, err := pickPorts(c.n, 100, 110, c.free, c.intn)
		if (err != nil) != c.wantErr || (!c.wantErr && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("%s: pickPorts = %v, %v; want %v (error %v)", c.name, got, err, c.want, c.wantErr)
		}
	}
}

func TestFreePortsAreListenableAndNotReused(t *testing.T) {
	a, err := FreePorts(4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FreePorts(4)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range append(a, b...) {
		if seen[p] {
			t.Errorf("port %d handed out twice: %v %v", p, a, b)
		}
		seen[p] = true
	}
	ReleasePorts(a)
	ReleasePorts(b)
}
