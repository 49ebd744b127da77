package record

import (
	"strings"
	"testing"
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
