package checker

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	mutateFlag = flag.Bool("mutate", false, "run every mutant of mutants.go against the -short suite (minutes); see MUTATION.md")
	mutateOnly = flag.String("mutate-only", "", "with -mutate: only the mutants whose name matches this regexp")
)

// TestMutantsApply keeps the mutant table honest in the fast suite: every
// mutant's text occurs exactly once in its file, so a refactor cannot
// quietly turn a mutant into a no-op.
func TestMutantsApply(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range mutants {
		if seen[m.name] {
			t.Errorf("two mutants named %q", m.name)
		}
		seen[m.name] = true
		b, err := os.ReadFile(filepath.Join("..", m.file))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), m.old); n != 1 {
			t.Errorf("%s: %q occurs %d times in %s, want once", m.name, m.old, n, m.file)
		}
		if len(m.killers) == 0 {
			t.Errorf("%s: no test named to kill it", m.name)
		}
	}
}

// mutantPackages are the packages whose -short tests judge a mutant of
// file: checker and history, whose tests hold the shared checkers, and the
// mutated file's own package (a workload's checks live with the workload).
func mutantPackages(file string) []string {
	pkgs := []string{"./checker/", "./history/"}
	if own := "./" + filepath.ToSlash(filepath.Dir(file)) + "/"; !slices.Contains(pkgs, own) {
		pkgs = append(pkgs, own)
	}
	return pkgs
}

var failedTest = regexp.MustCompile(`(?m)^--- FAIL: (\S+)`)

// TestMutants applies each mutant through go test -overlay (the source
// tree is never written), runs go test -short on checker and history, and
// requires it to fail in one of the tests the mutant names.
//
//	go test ./checker/ -run TestMutants$ -mutate -v
func TestMutants(t *testing.T) {
	if !*mutateFlag {
		t.Skip("mutation testing runs with -mutate")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	killed, ran := 0, 0
	only := regexp.MustCompile(*mutateOnly)
	for i, m := range mutants {
		if !only.MatchString(m.name) {
			continue
		}
		ran++
		path := filepath.Join(root, m.file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mutated := filepath.Join(dir, filepath.Base(m.file))
		if err := os.WriteFile(mutated, []byte(strings.Replace(string(b), m.old, m.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		overlay := filepath.Join(dir, "overlay.json")
		ov, _ := json.Marshal(map[string]map[string]string{"Replace": {path: mutated}})
		if err := os.WriteFile(overlay, ov, 0o644); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"test", "-short", "-count=1", "-timeout=300s", "-overlay=" + overlay}, mutantPackages(m.file)...)
		cmd := exec.Command(goBin, args...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		var by []string
		for _, f := range failedTest.FindAllStringSubmatch(string(out), -1) {
			if !slices.Contains(by, f[1]) {
				by = append(by, f[1])
			}
		}
		switch {
		case strings.Contains(string(out), "[build failed]") || strings.Contains(string(out), "[setup failed]"):
			t.Errorf("%2d %s: the mutant does not build:\n%s", i+1, m.name, out)
		case err == nil:
			t.Errorf("%2d %s: SURVIVED (no test failed)", i+1, m.name)
		case len(by) == 0:
			t.Errorf("%2d %s: go test failed without a failing test:\n%s", i+1, m.name, out)
		case !slices.ContainsFunc(m.killers, func(k string) bool { return slices.Contains(by, k) }):
			t.Errorf("%2d %s: killed by %s, none of the tests it names (%s)", i+1, m.name, strings.Join(by, ", "), strings.Join(m.killers, ", "))
		default:
			killed++
			t.Logf("%2d %-58s killed by %s", i+1, m.name, strings.Join(by, ", "))
		}
	}
	t.Logf("%d of %d mutants killed", killed, ran)
}
