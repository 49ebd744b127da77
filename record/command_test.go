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
