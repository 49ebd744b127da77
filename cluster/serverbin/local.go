package serverbin

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/internal/filecopy"
)

// A server developer runs cells against their own branch: FromSource
// builds nats-server from a checkout, FromBinary takes a binary they built.
// Either puts it in the cache under a name that stands in for a release
// version everywhere a cell names its server (the cell's label, the Docker
// image, Path): the commit's short hash, and "+dirty" with a hash of the
// changes when the tree differs from the commit. The name is keyed by
// content, so the same tree is built once and two dirty trees of one
// commit never share a name.

// localRE is what a local build's name looks like; Path finds such a name
// only in the cache.
var localRE = regexp.MustCompile(`^([0-9a-f]{10}(\+dirty)?\.[0-9a-f]{8}|[0-9a-f]{10}|bin\.[0-9a-f]{12})$`)

// IsLocal says whether a cell's server version names a local build
// (FromSource or FromBinary) rather than a release.
func IsLocal(version string) bool { return localRE.MatchString(version) }

// FromSource builds nats-server from the git checkout in dir, uncommitted
// and untracked files included, and returns the name of the build:
// "<commit>" for a clean tree, "<commit>+dirty.<changes>" otherwise. A tree
// built before is not built again. Errors are one line.
func FromSource(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := isServerModule(abs); err != nil {
		return "", err
	}
	name, err := sourceName(ctx, abs)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(CacheDir(), "nats-server", name, "nats-server")
	return name, buildOnce(bin, func(tmp string) error { return goBuild(ctx, abs, tmp, "--server-source "+dir) })
}

// goBuild builds the nats-server in src into the folder out; what names
// the build in its error.
func goBuild(ctx context.Context, src, out, what string) error {
	// -buildvcs: the binary records its commit and whether the tree was
	// modified, so --server-bin names it alike later.
	cmd := exec.CommandContext(ctx, "go", "build", "-buildvcs=true", "-o", filepath.Join(out, "nats-server"), ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: go build failed: %v: %s", what, err, firstLine(b.String()))
	}
	return nil
}

// FromBinary copies a nats-server binary the user built into the cache
// and returns its name: the commit its build info records ("+dirty" when
// it was built from a modified tree) with a hash of the binary, or
// "bin.<hash>" when it records none. A file that is no Go-built
// nats-server is refused in one line.
func FromBinary(path string) (string, error) {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--server-bin %s: not a Go binary: %v", path, err)
	}
	if info.Main.Path != module {
		return "", fmt.Errorf("--server-bin %s: built from module %q, not %s", path, info.Main.Path, module)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	name := "bin." + sum[:12]
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if len(rev) >= 10 {
		name = rev[:10] + "." + sum[:8]
		if modified == "true" {
			name = rev[:10] + "+dirty." + sum[:8]
		}
	}
	bin := filepath.Join(CacheDir(), "nats-server", name, "nats-server")
	return name, buildOnce(bin, func(tmp string) error { return filecopy.New(path, filepath.Join(tmp, "nats-server"), 0o755) })
}

// isServerModule refuses a dir whose go.mod is not nats-server's.
func isServerModule(dir string) error {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return fmt.Errorf("--server-source %s: no go.mod: want a nats-server checkout", dir)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) == 2 && fs[0] == "module" {
			if fs[1] != module {
				return fmt.Errorf("--server-source %s: module %s, want %s", dir, fs[1], module)
			}
			return nil
		}
	}
	return fmt.Errorf("--server-source %s: go.mod names no module", dir)
}

// sourceName is the build's name: the commit, and a hash of what differs
// from it (the diff, and every untracked file that git does not ignore).
func sourceName(ctx context.Context, dir string) (string, error) {
	git := func(args ...string) ([]byte, error) {
		out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
		if err != nil {
			return nil, fmt.Errorf("--server-source %s: git %s: %v (want a git checkout with a commit)", dir, args[0], err)
		}
		return out, nil
	}
	head, err := git("rev-parse", "HEAD")
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(string(head))[:10]
	diff, err := git("diff", "HEAD", "--binary")
	if err != nil {
		return "", err
	}
	untracked, err := git("ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return "", err
	}
	if len(diff) == 0 && len(untracked) == 0 {
		return commit, nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d:", len(diff))
	h.Write(diff)
	for _, f := range strings.Split(string(untracked), "\x00") {
		if f == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s:%d:", f, len(b))
		h.Write(b)
	}
	return commit + "+dirty." + hex.EncodeToString(h.Sum(nil))[:8], nil
}

// buildOnce makes bin with make (which writes into a temporary folder
// beside it) unless it is there already, under the cache's file lock, and
// moves it in with a rename, so a half-made binary is never cached.
func buildOnce(bin string, make func(tmp string) error) error {
	dir := filepath.Dir(bin)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	unlock, err := lockFile(filepath.Join(dir, "build.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		return nil
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := make(tmp); err != nil {
		return err
	}
	return os.Rename(filepath.Join(tmp, "nats-server"), bin)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// commit is a commit of a checkout that Path builds when a bisection
// reaches it (Commits registers it).
type commit struct{ dir, sha, subject string }

var commits = map[string]commit{} // by name; under mu

// Commits lists the commits of the checkout in dir from good to bad
// (first parents, oldest first, both ends included; "good..bad", either
// any revision git knows) and returns their names, the names a clean
// checkout of each builds under. Path builds each in a git worktree of
// dir when it is first asked for, so a bisection builds only the commits
// it probes.
func Commits(ctx context.Context, dir, span string) ([]string, error) {
	good, bad, ok := strings.Cut(span, "..")
	if !ok || good == "" || bad == "" {
		return nil, fmt.Errorf("--commits %q: want GOOD..BAD, two revisions of the checkout", span)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := isServerModule(abs); err != nil {
		return nil, err
	}
	// A range excludes its start, and exclusions are global to one
	// rev-list: the good commit is asked for on its own.
	var lines []string
	for _, args := range [][]string{{"-1", good}, {"--first-parent", "--reverse", good + ".." + bad}} {
		out, err := exec.CommandContext(ctx, "git", append([]string{"-C", abs, "log", "--format=%H %s"}, args...)...).Output()
		if err != nil {
			return nil, fmt.Errorf("--commits %s: git log in %s: %v", span, dir, err)
		}
		lines = append(lines, strings.Split(strings.TrimSpace(string(out)), "\n")...)
	}
	var names []string
	mu.Lock()
	defer mu.Unlock()
	for _, l := range lines {
		sha, subject, _ := strings.Cut(l, " ")
		if len(sha) < 10 {
			continue
		}
		names = append(names, sha[:10])
		commits[sha[:10]] = commit{abs, sha, subject}
	}
	if len(names) < 2 {
		return nil, fmt.Errorf("--commits %s: %d commits from %s to %s, want at least 2", span, len(names), good, bad)
	}
	return names, nil
}

// Subject is the subject line of a commit Commits listed, "" for any
// other name.
func Subject(name string) string {
	mu.Lock()
	defer mu.Unlock()
	return commits[name].subject
}

// buildCommit builds a listed commit in a temporary worktree of its
// checkout, removed afterwards.
func buildCommit(ctx context.Context, name string, c commit) error {
	tmp, err := os.MkdirTemp("", "nats-server-"+name+"-")
	if err != nil {
		return err
	}
	wt := filepath.Join(tmp, "src")
	defer func() {
		_ = exec.Command("git", "-C", c.dir, "worktree", "remove", "--force", wt).Run()
		os.RemoveAll(tmp)
	}()
	if out, err := exec.CommandContext(ctx, "git", "-C", c.dir, "worktree", "add", "--detach", wt, c.sha).CombinedOutput(); err != nil {
		return fmt.Errorf("commit %s: git worktree add: %v: %s", name, err, firstLine(string(out)))
	}
	bin := filepath.Join(CacheDir(), "nats-server", name, "nats-server")
	return buildOnce(bin, func(out string) error { return goBuild(ctx, wt, out, "commit "+name) })
}

// CommitOf is the checkout and full hash of a commit Commits listed.
func CommitOf(name string) (dir, sha string, ok bool) {
	mu.Lock()
	defer mu.Unlock()
	c, ok := commits[name]
	return c.dir, c.sha, ok
}
