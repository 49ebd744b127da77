package record

import (
	"fmt"
	"strings"
)

// Stripped are the flags that repeat a run or say where it is stored:
// what a search (chaos shrink) or a single rerun (chaostest) sets itself;
// and --shard: a shard of a smaller matrix holds other cells, so a search
// shrinks the whole matrix.
var Stripped = map[string]bool{"--runs": true, "--until-fail": true, "--same-seed": true, "--bisect": true, "--store": true, "--commits": true, "--shard": true}

// ArgsOf turns a stored run command ("chaos run --a=b ...") into the
// flags that run it once again, without the Stripped ones.
func ArgsOf(command string) ([]string, error) {
	words, err := Words(command)
	if err != nil {
		return nil, err
	}
	if len(words) < 2 || words[0] != "chaos" || words[1] != "run" {
		return nil, fmt.Errorf("the run's command %q is not a chaos run", command)
	}
	var out []string
	for _, w := range words[2:] {
		name, _, _ := strings.Cut(w, "=")
		if !Stripped[name] {
			out = append(out, w)
		}
	}
	return out, nil
}

// Words splits a command as a POSIX shell would, for the quoting a rerun
// command uses: single quotes, and '\” for a quote inside them.
func Words(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, have := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			in, have = !in, true
		case c == '\\' && !in && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			have = true
		case (c == ' ' || c == '\t') && !in:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if in {
		return nil, fmt.Errorf("unbalanced quote in %q", s)
	}
	if have {
		out = append(out, cur.String())
	}
	return out, nil
}
