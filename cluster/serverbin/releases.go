package serverbin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"

	"golang.org/x/mod/semver"
)

// Releases lists the nats-server releases the Go module proxy serves, in
// order, pre-releases (-RC.1, -preview.1) left out.
func Releases(ctx context.Context) ([]string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-versions", module)
	cmd.Dir = os.TempDir() // outside any module: the proxy's list, not go.mod's
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("list nats-server releases from the Go module proxy: %w", err)
	}
	fields := strings.Fields(string(out))
	var vs []string
	for _, v := range fields[min(1, len(fields)):] {
		if semver.IsValid(v) && semver.Prerelease(v) == "" {
			vs = append(vs, v)
		}
	}
	sort.Slice(vs, func(i, j int) bool { return semver.Compare(vs[i], vs[j]) < 0 })
	return vs, nil
}

// Served says whether the Go module proxy serves release v. A proxy's
// list (Releases) can leave out releases it serves: the one here does,
// and proxy.golang.org leaves out retracted ones.
func Served(ctx context.Context, v string) bool {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", module+"@"+v)
	cmd.Dir = os.TempDir()
	return semver.IsValid(v) && cmd.Run() == nil
}

// WithBounds is all plus the bounds of range r that the proxy serves
// (served) but its list left out, in order: a range names its bounds,
// so they are asked for one by one.
func WithBounds(all []string, r string, served func(string) bool) []string {
	lo, hi, _ := strings.Cut(r, "..")
	out := slices.Clone(all)
	for _, b := range []string{strings.TrimSpace(lo), strings.TrimSpace(hi)} {
		if semver.IsValid(b) && semver.Prerelease(b) == "" && !slices.Contains(out, b) && served(b) {
			out = append(out, b)
		}
	}
	sort.Slice(out, func(i, j int) bool { return semver.Compare(out[i], out[j]) < 0 })
	return out
}

// IsRange says whether s is a release range, FROM..TO.
func IsRange(s string) bool { return strings.Contains(s, "..") }

// InRange is the releases of all from lo to hi, both included; a bound
// that is not a release is a one-line error.
func InRange(all []string, r string) ([]string, error) {
	lo, hi, _ := strings.Cut(r, "..")
	lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
	for _, b := range []string{lo, hi} {
		if !semver.IsValid(b) {
			return nil, fmt.Errorf("--server-version %s: %q is not a version vX.Y.Z", r, b)
		}
	}
	if semver.Compare(lo, hi) > 0 {
		return nil, fmt.Errorf("--server-version %s: %s comes after %s", r, lo, hi)
	}
	var out []string
	found := map[string]bool{}
	for _, v := range all {
		if semver.Compare(v, lo) >= 0 && semver.Compare(v, hi) <= 0 {
			out = append(out, v)
			found[v] = true
		}
	}
	for _, b := range []string{lo, hi} {
		if !found[b] {
			return nil, fmt.Errorf("--server-version %s: %s is not a release the Go module proxy serves", r, b)
		}
	}
	return out, nil
}
