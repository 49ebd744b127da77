package shrink

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Move is one smaller candidate of a command.
type Move struct {
	Name string   // what it did: "--time-limit 60s to 30s"
	Args []string // the candidate's flags
}

// The least a move shrinks to.
const (
	minTimeLimit = 5 * time.Second
	minClients   = 1
)

// Moves are the candidates one step smaller than args, the ones that cut
// most first: one cell of several (a Direct Get setting, a release, a
// --nemesis), a single fault of a list or a composite, half the time limit,
// half the clients and keys.
func Moves(args []string) []Move {
	var out []Move
	out = append(out, oneOf(args, "--direct-get", map[string][]string{"both": {"on", "off"}})...)
	out = append(out, oneCell(args, "--server-version")...)
	out = append(out, oneCell(args, "--nemesis")...)
	out = append(out, singleFaults(args)...)
	if d, err := time.ParseDuration(value(args, "--time-limit")); err == nil && d/2 >= minTimeLimit {
		out = append(out, Move{fmt.Sprintf("--time-limit %s to %s", d, d/2), with(args, "--time-limit", (d / 2).String())})
	}
	if c, err := strconv.Atoi(value(args, "--clients")); err == nil && c/2 >= minClients {
		m := Move{fmt.Sprintf("--clients %d to %d", c, c/2), with(args, "--clients", strconv.Itoa(c/2))}
		if k, err := strconv.Atoi(value(m.Args, "--keys")); err == nil && k/2 >= c/2 {
			m.Name += fmt.Sprintf(", --keys %d to %d", k, k/2)
			m.Args = with(m.Args, "--keys", strconv.Itoa(k/2))
		}
		out = append(out, m)
	}
	return out
}

// oneOf replaces a value that stands for several cells with each one.
func oneOf(args []string, flag string, several map[string][]string) []Move {
	var out []Move
	for _, v := range several[value(args, flag)] {
		out = append(out, Move{fmt.Sprintf("%s %s only", flag, v), with(args, flag, v)})
	}
	return out
}

// oneCell keeps one of a flag's several values ("a,b", or the flag given
// more than once): each is a cell.
func oneCell(args []string, flag string) []Move {
	var vals []string
	for _, v := range values(args, flag) {
		if flag == "--server-version" { // a slice flag: "a,b" is two cells
			vals = append(vals, strings.Split(v, ",")...)
		} else {
			vals = append(vals, v)
		}
	}
	if len(vals) < 2 {
		return nil
	}
	var out []Move
	for _, v := range vals {
		out = append(out, Move{fmt.Sprintf("%s %s only", flag, v), with(args, flag, v)})
	}
	return out
}

// singleFaults replaces a one-cell --nemesis list ("a,b": the schedule
// picks from them) or composite ("a+b": injected together) with each
// fault alone.
func singleFaults(args []string) []Move {
	vals := values(args, "--nemesis")
	if len(vals) != 1 {
		return nil
	}
	var parts []string
	for _, alt := range strings.Split(vals[0], ",") {
		for _, p := range strings.Split(alt, "+") {
			if p != "" && !slices.Contains(parts, p) {
				parts = append(parts, p)
			}
		}
	}
	if len(parts) < 2 {
		return nil
	}
	var out []Move
	for _, p := range parts {
		out = append(out, Move{fmt.Sprintf("--nemesis %s to %s", vals[0], p), with(args, "--nemesis", p)})
	}
	return out
}

// values are every value args give flag, in order.
func values(args []string, flag string) []string {
	var out []string
	for _, a := range args {
		if name, v, ok := strings.Cut(a, "="); ok && name == flag {
			out = append(out, v)
		}
	}
	return out
}

func value(args []string, flag string) string {
	if vs := values(args, flag); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// with is args with flag given once, as v, where it was first given (at
// the end when it was not).
func with(args []string, flag, v string) []string {
	var out []string
	done := false
	for _, a := range args {
		if name, _, _ := strings.Cut(a, "="); name == flag {
			if !done {
				out, done = append(out, flag+"="+v), true
			}
			continue
		}
		out = append(out, a)
	}
	if !done {
		out = append(out, flag+"="+v)
	}
	return out
}
