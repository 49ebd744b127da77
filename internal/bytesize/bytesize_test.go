package bytesize

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Bytes
		bad  bool
	}{
		{"4096", 4096, false},
		{"4KiB", 4096, false},
		{"4kib", 4096, false},
		{"4Ki", 4096, false},
		{"4KB", 4000, false},
		{"40MB", 40_000_000, false},
		{"40MB/s", 40_000_000, false},
		{"1.5GiB", 1536 << 20, false},
		{"6GB", 6_000_000_000, false},
		{"512MiB", 512 << 20, false},
		{" 2 MiB ", 2 << 20, false},
		{"0", 0, false},
		{"", 0, true},
		{"-1MiB", 0, true},
		{"lots", 0, true},
		{"1XB", 0, true},
		{"1e30", 0, true},
	} {
		got, err := Parse(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("Parse(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestBytesString(t *testing.T) {
	for _, tc := range []struct {
		in   Bytes
		want string
	}{
		{0, "0B"}, {999, "999B"}, {1000, "1kB"}, {4 << 10, "4KiB"}, {1536 << 20, "1.5GiB"},
		{6_000_000_000, "6GB"}, {40_000_000, "40MB"}, {48 << 20, "48MiB"}, {1234567, "1.18MiB"}, {70444 << 10, "68.79MiB"},
	} {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("Bytes(%d).String() = %q, want %q", tc.in, got, tc.want)
		}
		if tc.in > 0 && tc.in != 1234567 && tc.in != 70444<<10 {
			if back, err := Parse(tc.want); err != nil || back != tc.in {
				t.Errorf("Parse(%q) = %d, %v: String does not read back", tc.want, back, err)
			}
		}
	}
}

func TestList(t *testing.T) {
	l := List{1 << 30}
	if err := l.Set("512MiB,4096,2GiB"); err != nil {
		t.Fatal(err)
	}
	if want := (List{512 << 20, 4096, 2 << 30}); len(l) != 3 || l[0] != want[0] || l[1] != want[1] || l[2] != want[2] {
		t.Errorf("Set gave %v, want %v (the default replaced)", l, want)
	}
	if got := l.String(); got != "512MiB,4KiB,2GiB" {
		t.Errorf("String = %q", got)
	}
	if err := l.Set("1GiB,nope"); err == nil {
		t.Error("a list with a bad size set without an error")
	}
}
