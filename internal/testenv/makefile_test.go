package testenv

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// recipe returns the recipe lines of target in a Makefile.
func recipe(makefile, target string) []string {
	var lines []string
	in := false
	for _, l := range strings.Split(makefile, "\n") {
		switch {
		case strings.HasPrefix(l, target+":"):
			in = true
		case in && strings.HasPrefix(l, "\t"):
			lines = append(lines, strings.TrimSpace(l))
		case in:
			return lines
		}
	}
	return lines
}

// The Makefile's suites follow the rule: make integration runs exactly
// the tests named by Pattern, without -short (which would skip them all);
// make unit runs everything with -short; make test runs every test without
// -short, so both suites.
func TestMakefileSelectsTheRule(t *testing.T) {
	b, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	mk := string(b)
	cases := []struct {
		target      string
		has, hasNot []string
	}{
		{"integration", []string{"$(GO) test", "-run '" + Pattern + "'", "./..."}, []string{"-short", "-bench"}},
		{"unit", []string{"$(GO) test", "-short", "./..."}, []string{"-run"}},
		{"test", []string{"$(GO) test", "./..."}, []string{"-short", "-run"}},
	}
	for _, c := range cases {
		lines := recipe(mk, c.target)
		var cmd string
		for _, l := range lines {
			if strings.Contains(l, "$(GO) test") {
				cmd = l
			}
		}
		if cmd == "" {
			t.Errorf("make %s: no go test line in %q", c.target, lines)
			continue
		}
		for _, s := range c.has {
			if !strings.Contains(cmd, s) {
				t.Errorf("make %s: %q lacks %q", c.target, cmd, s)
			}
		}
		for _, s := range c.hasNot {
			if strings.Contains(cmd, s) {
				t.Errorf("make %s: %q has %q", c.target, cmd, s)
			}
		}
		// go test's vet step may be skipped only where the full go vet
		// runs first, as a prerequisite.
		if strings.Contains(cmd, "-vet=off") && !regexp.MustCompile(`(?m)^`+c.target+`:[^#\n]*\bvet\b`).MatchString(mk) {
			t.Errorf("make %s: %q skips go test's vet, but the target does not depend on vet", c.target, cmd)
		}
	}
}
