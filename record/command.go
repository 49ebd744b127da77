package record

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/cluster/serverbin"
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

// DropFlags is command without the flags named (each as --name=value, the
// way a stored command writes them), every other word kept as written,
// quotes and all: a quoted path with a space stays one word.
func DropFlags(command string, names ...string) string {
	var out []string
	for _, raw := range rawWords(command) {
		name, _, _ := strings.Cut(raw, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			out = append(out, raw)
		}
	}
	return strings.Join(out, " ")
}

// rawWords splits s at the spaces outside single or double quotes, each
// word as written.
func rawWords(s string) []string {
	var out []string
	start, quote := -1, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\' && i+1 < len(s):
			i++
		case c == ' ' || c == '\t':
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// RerunOne is the command that runs one cell's run again: the run's own
// command with that run's seed and version, once. A commit of --commits
// is checked out in its --server-source first.
func RerunOne(command string, c CellResult) string {
	var parts []string
	local := serverbin.IsLocal(c.ServerVersion)
	for _, p := range rawWords(command) { // a quoted value is one word, whatever it holds
		name, _, _ := strings.Cut(p, "=")
		switch name {
		case "--runs", "--until-fail", "--same-seed", "--bisect", "--seed", "--server-version", "--commits", "--shard":
			continue
		case "--server-bin", "--server-source": // which of several local builds made this cell is not known here
			if !local {
				continue
			}
		}
		parts = append(parts, p)
	}
	if dir, sha, ok := serverbin.CommitOf(c.ServerVersion); ok {
		parts = append([]string{"git", "-C", ShellQuote(dir), "checkout", "--detach", sha, "&&"}, parts...)
	} else if c.ServerVersion != "" && !local {
		parts = append(parts, "--server-version="+c.ServerVersion)
	}
	return strings.Join(append(parts, fmt.Sprintf("--seed=%d", c.SeedOr(0))), " ")
}

// ShellQuote is s as one shell word: as it is when it holds only
// characters no shell treats specially, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == ',' || r == '/' || r == ':' || r == '+' ||
			(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
