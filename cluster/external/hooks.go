package external

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
)

// Hooks maps a control of cluster.Cluster to the shell command that does
// it on the user's cluster: "kill" -> "kubectl -n nats delete pod {node}
// --grace-period=0 --force".
type Hooks map[string]string

// Controls are the hook names, one per cluster.Cluster method.
var Controls = []string{"kill", "stop", "start", "pause", "resume", "wipe", "partition", "heal"}

// Template variables. Every control gets {all}; the node controls get
// {node} (the server name) and {index} (0-based, the order of --server);
// partition and heal get the sides of the partition: {nodes} (every node
// outside the largest group, space-separated), {others} (the largest
// group), their comma-separated forms {nodes_csv} and {others_csv}, and
// {groups} (every group comma-joined, groups space-separated; a node in no
// group is a group of its own). {{name}} is a literal {name}.
var varsOf = map[string][]string{
	"kill": nodeVars, "stop": nodeVars, "start": nodeVars, "pause": nodeVars, "resume": nodeVars, "wipe": nodeVars,
	"partition": partVars, "heal": partVars,
}

var (
	nodeVars = []string{"all", "node", "index"}
	partVars = []string{"all", "nodes", "nodes_csv", "others", "others_csv", "groups"}
)

// ParseHooks reads --fault-hook values, each NAME=COMMAND, and checks every
// template's variables.
func ParseHooks(specs []string) (Hooks, error) {
	h := Hooks{}
	for _, s := range specs {
		name, tmpl, ok := strings.Cut(s, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		switch {
		case !ok:
			return nil, fmt.Errorf("--fault-hook %q: want NAME=COMMAND, e.g. kill='kubectl delete pod {node} --force'", s)
		case name == "restart":
			return nil, errors.New("--fault-hook restart: hooks are named by control; the restart fault runs the stop hook, then start: give --fault-hook stop=... and --fault-hook start=...")
		case varsOf[name] == nil:
			return nil, fmt.Errorf("--fault-hook %s: unknown hook; want one of %s", name, strings.Join(Controls, ", "))
		case strings.TrimSpace(tmpl) == "":
			return nil, fmt.Errorf("--fault-hook %s: empty command", name)
		case h[name] != "":
			return nil, fmt.Errorf("--fault-hook %s given twice", name)
		}
		if _, err := fill(tmpl, allowed(name)); err != nil {
			return nil, fmt.Errorf("--fault-hook %s: %v", name, err)
		}
		h[name] = tmpl
	}
	return h, nil
}

// allowed maps every variable of a control to a placeholder, to check a
// template without filling it.
func allowed(control string) map[string]string {
	m := map[string]string{}
	for _, v := range varsOf[control] {
		m[v] = "x"
	}
	return m
}

// fill replaces {name} with vars[name]. A {name} of lower-case letters and
// '_' that is not a variable is an error (a typo would otherwise reach the
// shell); {{name}} is a literal {name}; every other brace, like ${HOME},
// awk's { print } or YAML's {a: [b]}, is left alone.
func fill(tmpl string, vars map[string]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tmpl); {
		if tmpl[i] != '{' {
			b.WriteByte(tmpl[i])
			i++
			continue
		}
		if name, n := varAt(tmpl[i+1:]); strings.HasPrefix(tmpl[i+1:], "{") && n > 0 && strings.HasPrefix(tmpl[i+1+n:], "}") {
			b.WriteString("{" + name + "}") // {{name}}: literal
			i += n + 2
			continue
		}
		name, n := varAt(tmpl[i:])
		if n == 0 {
			b.WriteByte('{')
			i++
			continue
		}
		v, ok := vars[name]
		if !ok {
			return "", fmt.Errorf("unknown variable {%s}; this hook takes %s", name, braces(vars))
		}
		b.WriteString(v)
		i += n
	}
	return b.String(), nil
}

// varAt reads "{name}" at the start of s: the name and the length of the
// whole, or 0 when s does not start with one.
func varAt(s string) (string, int) {
	if !strings.HasPrefix(s, "{") {
		return "", 0
	}
	j := strings.IndexByte(s, '}')
	if j < 2 || !isVarName(s[1:j]) {
		return "", 0
	}
	return s[1:j], j + 1
}

func isVarName(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '_' {
			return false
		}
	}
	return s != ""
}

func braces(vars map[string]string) string {
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	return "{" + strings.Join(names, "} {") + "}"
}

// hookRunner runs hooks with `sh -c`, one bound each, and keeps a log of
// every command, its output and its exit in the cell's logs/hooks.log.
type hookRunner struct {
	hooks   Hooks
	timeout time.Duration
	mu      sync.Mutex
	log     io.Writer // nil: no log
}

// run fills control's template and runs it. The variables are also in the
// environment as CHAOS_<NAME> (CHAOS_NODE, CHAOS_INDEX, ...), for scripts.
func (r *hookRunner) run(ctx context.Context, control string, vars map[string]string) error {
	tmpl := r.hooks[control]
	if tmpl == "" {
		return fmt.Errorf("no --fault-hook %s given", control)
	}
	line, err := fill(tmpl, vars)
	if err != nil {
		return fmt.Errorf("hook %s: %v", control, err)
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Env = os.Environ()
	for k, v := range vars {
		cmd.Env = append(cmd.Env, "CHAOS_"+strings.ToUpper(k)+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	ownGroup(cmd) // so a timeout kills what the shell started, too
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	r.record(control, line, out.Bytes(), err, took)
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Errorf("hook %s (%s) did not finish within --hook-timeout %s%s", control, line, r.timeout, lastLine(out.Bytes()))
	case err != nil:
		return fmt.Errorf("hook %s (%s) failed after %.1fs: %v%s", control, line, took.Seconds(), err, lastLine(out.Bytes()))
	}
	return nil
}

func (r *hookRunner) record(control, line string, out []byte, err error, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.log == nil {
		return
	}
	status := "ok"
	if err != nil {
		status = err.Error()
	}
	fmt.Fprintf(r.log, "%s hook %s: %s\n  exit: %s after %.3fs\n", time.Now().UTC().Format(time.RFC3339Nano), control, line, status, took.Seconds())
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if l != "" {
			fmt.Fprintf(r.log, "  | %s\n", l)
		}
	}
}

func (r *hookRunner) setLog(w io.Writer) {
	r.mu.Lock()
	r.log = w
	r.mu.Unlock()
}

// lastLine is the output's last non-empty line, as ": line", for errors.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if l == "" {
		return ""
	}
	if len(l) > 200 {
		l = l[:200] + "..."
	}
	return ": " + l
}
