package findings

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestGoTest: a finding's rerun command becomes a go test that parses,
// named after its class, with every flag but those that repeat or store
// a run, quoting kept, and the password read from the environment again.
func TestGoTest(t *testing.T) {
	cases := []struct {
		class, command string
		want           []string // lines it must hold; none: no test
	}{
		{"lost-stream-head", `chaos run --direct-get=off --nemesis=pause+kill,kill --runs=5 --until-fail=true --store='/tmp/my store' --note='it'\''s "x"' --seed=18`,
			[]string{"func TestChaosLostStreamHead(t *testing.T) {", `"--nemesis=pause+kill,kill",`, `"--note=it's \"x\"",`, `"--seed=18",`}},
		{"kv-ttl-expired-read", `chaos run --runtime=external --user=chaos --password="$NATS_PASSWORD" --seed=3`,
			[]string{"func TestChaosKvTtlExpiredRead(", `"--password=" + os.Getenv("NATS_PASSWORD"),`}},
		{"x", `chaos hunt --budget=1m`, nil},
		{"x", `chaos run --note='open`, nil},
	}
	for _, c := range cases {
		got := GoTest(c.class, c.command)
		if c.want == nil {
			if got != "" {
				t.Errorf("%s: %q, want no test", c.command, got)
			}
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: lacks %q:\n%s", c.command, w, got)
			}
		}
		for _, gone := range []string{"--runs", "--until-fail", "--store"} {
			if strings.Contains(got, gone) {
				t.Errorf("%s: keeps %s:\n%s", c.command, gone, got)
			}
		}
		src := "package x\n\nimport (\n\t\"os\"\n\t\"testing\"\n\n\t\"github.com/jetstream-chaos/jetstream-chaos/chaostest\"\n)\n\n" + got
		if _, err := parser.ParseFile(token.NewFileSet(), "x_test.go", src, 0); err != nil {
			t.Errorf("%s: the test does not parse: %v\n%s", c.command, err, got)
		}
	}
}
