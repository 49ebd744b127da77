package external

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFillReplacesVariablesAndLeavesOtherBraces(t *testing.T) {
	vars := map[string]string{"node": "nats-0", "index": "0", "nodes": "nats-1 nats-2", "nodes_csv": "nats-1,nats-2"}
	cases := []struct{ tmpl, want, err string }{
		{"kubectl -n nats delete pod {node} --force", "kubectl -n nats delete pod nats-0 --force", ""},
		{"echo {index}:{node}", "echo 0:nats-0", ""},
		{"for n in {nodes}; do echo $n; done", "for n in nats-1 nats-2; do echo $n; done", ""},
		{"pods: [{nodes_csv}]", "pods: [nats-1,nats-2]", ""},
		{"echo ${HOME} {node}", "echo ${HOME} nats-0", ""},                     // shell braces are not variables
		{"awk '{ print $1 }' f", "awk '{ print $1 }' f", ""},                   // nor awk's
		{"echo {{node}} {node}", "echo {node} nats-0", ""},                     // {{name}} is a literal {name}
		{"echo {}", "echo {}", ""},                                             // empty braces stay
		{"pods: {nats: [{nodes_csv}]}}", "pods: {nats: [nats-1,nats-2]}}", ""}, // YAML's braces stay, }} included
		{"metadata: {name: x, namespace: nats}", "metadata: {name: x, namespace: nats}", ""},
		{"a {{ b }} c", "a {{ b }} c", ""},
		{"echo {nod}", "", "unknown variable {nod}; this hook takes {index} {node} {nodes} {nodes_csv}"}, // a typo never reaches the shell
		{"echo {node", "echo {node", ""},
		{"", "", ""},
	}
	for _, c := range cases {
		got, err := fill(c.tmpl, vars)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("fill(%q) error %v, want %q", c.tmpl, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("fill(%q): %v", c.tmpl, err)
		case c.err == "" && got != c.want:
			t.Errorf("fill(%q) = %q, want %q", c.tmpl, got, c.want)
		}
	}
}

func TestParseHooks(t *testing.T) {
	good, err := ParseHooks([]string{"kill=docker kill {node}", "Start = docker start {node}", "partition=cut {nodes} from {others_csv} ({groups})"})
	if err != nil {
		t.Fatal(err)
	}
	if good["kill"] != "docker kill {node}" || good["start"] != " docker start {node}" || len(good) != 3 {
		t.Errorf("hooks %q", good)
	}
	bad := []struct{ spec, want string }{
		{"kill", "want NAME=COMMAND"},
		{"restart=kubectl delete pod {node}", "the restart fault runs the stop hook, then start"},
		{"reboot=x", "unknown hook; want one of kill, stop, start, pause, resume, wipe, partition, heal"},
		{"kill=  ", "--fault-hook kill: empty command"},
		{"kill=echo {nodes}", "unknown variable {nodes}; this hook takes {all} {index} {node}"},
		{"partition=echo {node}", "unknown variable {node}; this hook takes {all} {groups} {nodes} {nodes_csv} {others} {others_csv}"},
	}
	for _, b := range bad {
		if _, err := ParseHooks([]string{b.spec}); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ParseHooks(%q) = %v, want an error containing %q", b.spec, err, b.want)
		}
	}
	if _, err := ParseHooks([]string{"kill=a", "kill=b"}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a hook given twice: %v", err)
	}
}

func TestHookRunnerRunsShellWithVariablesAndLogs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	var log strings.Builder
	r := &hookRunner{timeout: 5 * time.Second, log: &log, hooks: Hooks{
		"kill":  "echo {node} {index} $CHAOS_NODE >> " + out,
		"stop":  "echo about to fail; exit 3",
		"pause": "sleep 30",
	}}
	ctx := context.Background()
	if err := r.run(ctx, "kill", map[string]string{"node": "n2", "index": "1"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "n2 1 n2\n" {
		t.Errorf("the hook wrote %q", b)
	}
	err := r.run(ctx, "stop", map[string]string{"node": "n2", "index": "1"})
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), ": about to fail") {
		t.Errorf("a failing hook: %v", err)
	}
	r.timeout = 300 * time.Millisecond
	start := time.Now()
	err = r.run(ctx, "pause", map[string]string{"node": "n2", "index": "1"})
	if err == nil || !strings.Contains(err.Error(), "did not finish within --hook-timeout 300ms") {
		t.Errorf("a hook past its timeout: %v", err)
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("the timed-out hook was not killed: took %s", took)
	}
	if err := r.run(ctx, "resume", nil); err == nil || err.Error() != "no --fault-hook resume given" {
		t.Errorf("a missing hook: %v", err)
	}
	for _, want := range []string{"hook kill: echo n2 1", "exit: ok", "hook stop:", "| about to fail", "hook pause: sleep 30"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("hooks.log lacks %q:\n%s", want, log.String())
		}
	}
}
