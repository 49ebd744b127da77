package serverbin

import (
	"strings"
	"testing"
)

func TestInRange(t *testing.T) {
	all := []string{"v2.14.4", "v2.14.5", "v2.14.9", "v2.14.10", "v2.15.0", "v2.15.3"}
	for _, tc := range []struct {
		r, want, err string
	}{
		{"v2.14.5..v2.15.3", "v2.14.5 v2.14.9 v2.14.10 v2.15.0 v2.15.3", ""},
		{"v2.14.9..v2.14.10", "v2.14.9 v2.14.10", ""}, // numeric, not string, order
		{"v2.14.5..v2.14.5", "v2.14.5", ""},
		{"v2.15.3..v2.14.5", "", "comes after"},
		{"v2.14.6..v2.15.3", "", "v2.14.6 is not a release"},
		{"2.14.5..v2.15.3", "", "not a version"},
	} {
		got, err := InRange(all, tc.r)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.r, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s = %v, %v; want %s", tc.r, got, err, tc.want)
		}
	}
}

// TestWithBounds: a bound the proxy serves but did not list is added in
// its place; one it does not serve, a pre-release or a listed one is not.
func TestWithBounds(t *testing.T) {
	all := []string{"v2.12.1", "v2.12.3", "v2.15.3"}
	served := func(v string) bool { return v == "v2.12.0" || v == "v2.12.2" }
	for _, tc := range []struct{ r, want string }{
		{"v2.12.0..v2.12.3", "v2.12.0 v2.12.1 v2.12.3 v2.15.3"},
		{"v2.12.0..v2.12.2", "v2.12.0 v2.12.1 v2.12.2 v2.12.3 v2.15.3"},
		{"v2.12.1..v2.15.3", "v2.12.1 v2.12.3 v2.15.3"},
		{"v2.11.9..v2.15.3", "v2.12.1 v2.12.3 v2.15.3"}, // not served: InRange says so
		{"v2.12.0-RC.1..v2.15.3", "v2.12.1 v2.12.3 v2.15.3"},
	} {
		if got := strings.Join(WithBounds(all, tc.r, served), " "); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.r, got, tc.want)
		}
	}
	if strings.Join(all, " ") != "v2.12.1 v2.12.3 v2.15.3" {
		t.Errorf("the list given was changed: %v", all)
	}
}
