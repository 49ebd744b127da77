package record

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
)

func TestWordsAndArgsOf(t *testing.T) {
	args, err := ArgsOf(`chaos run --direct-get=off --store='/tmp/my store' --nemesis=pause+kill,kill --runs=5 --until-fail=true --shard=2/3 --note='it'\''s' --seed=18`)
	want := []string{"--direct-get=off", "--nemesis=pause+kill,kill", "--note=it's", "--seed=18"}
	if err != nil || strings.Join(args, "|") != strings.Join(want, "|") {
		t.Errorf("ArgsOf: %q, %v; want %q", args, err, want)
	}
	for _, bad := range []string{"chaos hunt --budget=1m", "chaos run --x='open"} {
		if _, err := ArgsOf(bad); err == nil {
			t.Errorf("ArgsOf(%q) took it", bad)
		}
	}
}

// TestDropFlags: the flags named go, every other word stays as written,
// a quoted space included.
func TestDropFlags(t *testing.T) {
	cmd := `chaos run --shard=2/3 --store='/tmp/my store' --note="a b" --password="$NATS_PASSWORD" --seed=18`
	got := DropFlags(cmd, "--shard", "--store")
	want := `chaos run --note="a b" --password="$NATS_PASSWORD" --seed=18`
	if got != want {
		t.Fatalf("%s\nwant %s", got, want)
	}
	if got := DropFlags("chaos  run --x=1 ", "--y"); got != "chaos run --x=1" {
		t.Fatalf("%q", got)
	}
}

// A failing probe's rerun names what built its server: a release by
// --server-version, a local build by the flags that built it, a commit of
// --commits by checking it out in its --server-source first.
func TestRerunOneLocalBuilds(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	src := filepath.Join(t.TempDir(), "my src")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "go.mod"), []byte("module github.com/nats-io/nats-server/v2\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one"},
		{"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "two"}} {
		if out, err := exec.Command("git", append([]string{"-C", src}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	names, err := serverbin.Commits(context.Background(), src, "HEAD~1..HEAD")
	if err != nil {
		t.Fatal(err)
	}
	_, sha, _ := serverbin.CommitOf(names[1])
	cell := func(v string) CellResult {
		return CellResult{Cell: Cell{ServerVersion: v, Seed: 9}}
	}
	for _, tc := range []struct{ command, version, want string }{
		{"chaos run --server-source=/s --server-version=v2.15.3 --runs=5", "v2.15.3", "chaos run --server-version=v2.15.3 --seed=9"},
		{"chaos run --server-source=/s --server-version=v2.15.3 --runs=5", "0123456789+dirty.abcdef01", "chaos run --server-source=/s --seed=9"},
		{"chaos run --server-bin=/b --runs=5", "bin.0123456789ab", "chaos run --server-bin=/b --seed=9"},
		{"chaos run --store='/tmp/a --runs=5 b' --runs=5", "v2.15.3", "chaos run --store='/tmp/a --runs=5 b' --server-version=v2.15.3 --seed=9"},
		{"chaos run --bisect=true --server-source='" + src + "' --commits=HEAD~1..HEAD --runs=5", names[1],
			"git -C '" + src + "' checkout --detach " + sha + " && chaos run --server-source='" + src + "' --seed=9"},
	} {
		if got := RerunOne(tc.command, cell(tc.version)); got != tc.want {
			t.Errorf("%s on %s:\n got %s\nwant %s", tc.command, tc.version, got, tc.want)
		}
	}
}
