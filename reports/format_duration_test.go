package reports

import (
	"testing"
	"time"
)

// The words the catch-up page (and any view) writes sizes, times and
// counts in.
func TestFormatWords(t *testing.T) {
	tests := []struct{ got, want string }{
		{Times(1), "once"},
		{Times(1200), "1,200 times"},
		{FormatSecs(4.94), "4.9 s"},
		{FormatSecs(125), "2 m 5 s"},
		{FormatAt(12250), "12.2 s"},
		{FormatDuration(0), "0 s"},
		{FormatDuration(90 * time.Second), "90 s"},
		{FormatDuration(10 * time.Minute), "10 m"},
		{FormatDuration(2 * time.Hour), "2 h"},
		{FormatDuration(150 * time.Second), "2 m 30 s"},
		{FormatSize(1536 << 20), "1.5 GiB"},
		{FormatSize(40_000_000), "40 MB"},
		{FormatRatio(0.944), "0.94x"},
		{FormatRatio(12.4), "12x"},
		{FormatAtList(nil), "?"},
		{FormatAtList([]int64{1000, 2500}), "1.0 s, 2.5 s"},
		{FormatAtList([]int64{1, 2, 3, 4, 5, 6, 7, 8}), "0.0 s, 0.0 s, 0.0 s, 0.0 s, 0.0 s, 0.0 s, … (2 more)"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}
