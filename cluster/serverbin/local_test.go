package serverbin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeCheckout is a git checkout of a module named like nats-server's,
// whose main prints one line: it builds in a second, with no network.
func fakeCheckout(t *testing.T) (dir, commit string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir = t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module "+module+"\n\ngo 1.22\n")
	write(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() { println(\"fake nats-server\") }\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "one"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return dir, strings.TrimSpace(string(out))[:10]
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A checkout builds once per tree: named by its commit while clean, by
// the commit and "+dirty" with a hash of the changes once edited or given
// an untracked file; Path finds each build, and refuses a local name it
// has not cached.
func TestFromSource(t *testing.T) {
	t.Setenv("JSCHAOS_CACHE", t.TempDir())
	ctx := context.Background()
	dir, commit := fakeCheckout(t)
	clean, err := FromSource(ctx, dir)
	if err != nil || clean != commit || !IsLocal(clean) {
		t.Fatalf("clean tree: %q, %v; want %q", clean, err, commit)
	}
	bin, err := Path(ctx, clean)
	if err != nil {
		t.Fatal(err)
	}
	built, _ := os.Stat(bin)
	time.Sleep(10 * time.Millisecond)
	if again, err := FromSource(ctx, dir); err != nil || again != clean {
		t.Fatalf("same tree again: %q, %v", again, err)
	}
	if fi, _ := os.Stat(bin); !fi.ModTime().Equal(built.ModTime()) {
		t.Errorf("the same tree was built twice")
	}
	write(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() { println(\"fake nats-server, a line added\") }\n")
	edited, err := FromSource(ctx, dir)
	if err != nil || !strings.HasPrefix(edited, commit+"+dirty.") || !IsLocal(edited) {
		t.Fatalf("edited tree: %q, %v", edited, err)
	}
	write(t, filepath.Join(dir, "extra.go"), "package main\n")
	untracked, err := FromSource(ctx, dir)
	if err != nil || untracked == edited || !strings.HasPrefix(untracked, commit+"+dirty.") {
		t.Fatalf("untracked file: %q (edited %q), %v", untracked, edited, err)
	}
	if _, err := Path(ctx, untracked); err != nil {
		t.Errorf("Path(%s): %v", untracked, err)
	}
	if _, err := Path(ctx, "0123456789+dirty.abcdef01"); err == nil || !strings.Contains(err.Error(), "give its --server-source or --server-bin again") {
		t.Errorf("an uncached local build: %v", err)
	}

	// The binary it built records its commit and that the tree was
	// modified: FromBinary names it so.
	b, err := Path(ctx, untracked)
	if err != nil {
		t.Fatal(err)
	}
	name, err := FromBinary(b)
	if err != nil || !strings.HasPrefix(name, commit+"+dirty.") || name == untracked || !IsLocal(name) {
		t.Errorf("FromBinary of the dirty build: %q, %v", name, err)
	}
	if p, err := Path(ctx, name); err != nil || p == b {
		t.Errorf("FromBinary's copy: %q, %v", p, err)
	}
}

// Bad input is refused in one line naming the flag.
func TestLocalBuildRefusals(t *testing.T) {
	t.Setenv("JSCHAOS_CACHE", t.TempDir())
	ctx := context.Background()
	other := t.TempDir()
	write(t, filepath.Join(other, "go.mod"), "module example.com/other\n")
	broken, _ := fakeCheckout(t)
	write(t, filepath.Join(broken, "main.go"), "package main\n\nfunc main() { undefined() }\n")
	notGit := t.TempDir()
	write(t, filepath.Join(notGit, "go.mod"), "module "+module+"\n")
	notGo := filepath.Join(t.TempDir(), "nats-server")
	write(t, notGo, "#!/bin/sh\n")
	cases := []struct {
		name string
		err  func() error
		want string
	}{
		{"no go.mod", func() error { _, err := FromSource(ctx, t.TempDir()); return err }, "--server-source"},
		{"another module", func() error { _, err := FromSource(ctx, other); return err }, "module example.com/other"},
		{"not a git checkout", func() error { _, err := FromSource(ctx, notGit); return err }, "want a git checkout"},
		{"does not compile", func() error { _, err := FromSource(ctx, broken); return err }, "go build failed"},
		{"not a Go binary", func() error { _, err := FromBinary(notGo); return err }, "--server-bin " + notGo + ": not a Go binary"},
		{"another program", func() error { _, err := FromBinary(os.Args[0]); return err }, "not " + module},
	}
	for _, c := range cases {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
	}
}

// A bisection's commits: Commits lists good..bad oldest first, both ends
// included, and Path builds the one asked for in a worktree it removes.
func TestCommits(t *testing.T) {
	t.Setenv("JSCHAOS_CACHE", t.TempDir())
	ctx := context.Background()
	dir, first := fakeCheckout(t)
	for _, n := range []string{"two", "three"} {
		write(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() { println(\""+n+"\") }\n")
		if out, err := exec.Command("git", "-C", dir, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qam", "commit "+n).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	names, err := Commits(ctx, dir, first+"..HEAD")
	if err != nil || len(names) != 3 || names[0] != first || Subject(names[1]) != "commit two" || Subject(names[2]) != "commit three" {
		t.Fatalf("Commits: %v, %v", names, err)
	}
	bin, err := Path(ctx, names[1])
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "two" {
		t.Errorf("the second commit's build says %q, %v", out, err)
	}
	if out, _ := exec.Command("git", "-C", dir, "worktree", "list").Output(); strings.Count(string(out), "\n") != 1 {
		t.Errorf("worktrees left: %s", out)
	}
	for _, span := range []string{first, first + "..nosuchrev", "HEAD..HEAD"} {
		if _, err := Commits(ctx, dir, span); err == nil || !strings.Contains(err.Error(), "--commits") {
			t.Errorf("Commits(%q): %v", span, err)
		}
	}
}
