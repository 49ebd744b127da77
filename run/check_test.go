package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/observe"
	"github.com/jetstream-chaos/jetstream-chaos/workloads"
)

// TestStoredWorkload: the workload of a stored run is the one its run.json
// names, the default only when there is no run.json or it names none, and a
// run.json that does not decode is an error, never the default.
func TestStoredWorkload(t *testing.T) {
	cases := []struct {
		name, runJSON, want, err string
	}{
		{"no run.json", "", workloads.Default, ""},
		{"names none", `{"seed":1}`, workloads.Default, ""},
		{"names queue", `{"workload":"queue"}`, "queue", ""},
		{"malformed", `{"workload":`, "", "run.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.runJSON != "" {
				if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(c.runJSON), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, named, err := storedWorkload(dir)
			if c.err == "" && named != (c.runJSON != "") {
				t.Errorf("named %v with run.json %q", named, c.runJSON)
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one naming %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("%q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// TestRecheckNamesTheWorkload: a cell is judged by the workload its run's
// run.json names, else by the one its own results.json names (a cell
// copied out of its run folder), and only when neither says is the
// default assumed, and the name says it was.
func TestRecheckNamesTheWorkload(t *testing.T) {
	for _, c := range []struct {
		name, runJSON, cellJSON, want string
	}{
		{"run.json names it", `{"workload":"tiny"}`, `{"verdict":"valid"}`, "tiny"},
		{"the cell names it", "", `{"workload_name":"tiny"}`, "tiny"},
		{"run.json wins", `{"workload":"tiny"}`, `{"workload_name":"kv-update"}`, "tiny"},
		{"nothing names it", "", `{"verdict":"valid"}`, workloads.Default + " (assumed: neither a run.json beside the cell nor its results.json names a workload)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cell := filepath.Join(t.TempDir(), "cell")
			files := map[string]string{"history.jsonl": "", "stored.json": "{}", "results.json": c.cellJSON}
			if c.runJSON != "" {
				files["../run.json"] = c.runJSON
			}
			if err := os.MkdirAll(cell, 0o755); err != nil {
				t.Fatal(err)
			}
			for f, body := range files {
				if err := os.WriteFile(filepath.Join(cell, f), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			name, res, err := Recheck(cell, checker.Options{})
			if name != c.want {
				t.Fatalf("workload %q, want %q", name, c.want)
			}
			if c.want == "tiny" && (err != nil || len(res) == 0 || res[0].Name != "tiny-acked") {
				t.Errorf("judged by %v (%v), want tiny's checks", res, err)
			}
		})
	}
}

// TestCheckCellJudgesTheNodes: a cell the pipeline observed (its
// nodes.jsonl) gets node-health after the workload's own checks, whatever
// the workload, and an OOM kill there is invalid though the workload's
// checks are valid; a cell stored before the observer gets none.
func TestCheckCellJudgesTheNodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("history.jsonl", `{"client":0,"node":"n1","type":"put","key":"k0","value":"v1","rev":1,"outcome":"ok","invoke":1000,"complete":2000}`+"\n")
	names := func(checks []checker.Result) string {
		var s []string
		for _, c := range checks {
			s = append(s, c.Name+" "+string(c.Verdict))
		}
		return strings.Join(s, ", ")
	}
	checks, err := CheckCell(dir, validWorkload{}, nil, checker.Options{})
	if err != nil || names(checks) != "own valid" {
		t.Fatalf("a cell stored before the observer: %s, %v", names(checks), err)
	}
	write(observe.File, `{"t_ns":0,"kind":"start","nodes":["n1"],"every_ns":250000000}
{"t_ns":250000000,"asked_ns":249000000,"node":"n1","kind":"state","state":{"running":true}}
{"t_ns":500000000,"asked_ns":499000000,"node":"n1","kind":"state","state":{"running":false,"oom_killed":true,"oom_kills":1,"exit_code":137}}
{"t_ns":600000000,"kind":"stop"}
`)
	checks, err = CheckCell(dir, validWorkload{}, nil, checker.Options{})
	if err != nil || names(checks) != "own valid, node-health invalid" || checks[1].Counts[observe.CountOOMKills] != 1 {
		t.Fatalf("an observed cell whose node was OOM-killed: %s, %v", names(checks), err)
	}
}

// validWorkload is a workload whose own check finds nothing.
type validWorkload struct{}

func (validWorkload) Name() string                                       { return "valid" }
func (validWorkload) Doc() string                                        { return "a workload whose check finds nothing" }
func (validWorkload) Flags(*pflag.FlagSet) workloads.Expander            { return nil }
func (validWorkload) Decode(json.RawMessage) (workloads.Settings, error) { return nil, nil }
func (validWorkload) Check(string, checker.Options) ([]checker.Result, error) {
	return []checker.Result{{Name: "own", Verdict: checker.Valid}}, nil
}

// panickyWorkload's checks panic before any one check runs (reading its
// files, say).
type panickyWorkload struct{ validWorkload }

func (panickyWorkload) Check(string, checker.Options) ([]checker.Result, error) {
	panic("nil map")
}

// TestCheckCellPanicIsAnError: a workload's Check that panics is a harness
// error naming the panic, never a verdict and never a crash of chaos check.
func TestCheckCellPanicIsAnError(t *testing.T) {
	checks, err := CheckCell(t.TempDir(), panickyWorkload{}, nil, checker.Options{})
	if err == nil || checks != nil || !strings.Contains(err.Error(), "valid checks panicked (a bug of the toolkit): nil map") {
		t.Fatalf("%v, %v; want an error naming the panic", checks, err)
	}
}

// TestUnhealedFaults: the windows whose heal was not verified, read from
// history.jsonl as a hunt's run stored them; an unverified injection
// with a verified heal, and a trigger that never fired, are not among them.
func TestUnhealedFaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	lines := `{"client":-1,"type":"fault","outcome":"info","invoke":1,"complete":2,"fault":"partition-one+member-replace","targets":["n2","n3"],"verified":false,"detail":"inject: cut n2 from n1 n3: routes cut after 3.9s + NOT VERIFIED: n3 replaced by n3-r1; heal: routes full after 0.3s + NOT VERIFIED: n3-r1 not a current replica within 20.1s"}
{"client":-1,"type":"fault","outcome":"info","invoke":3,"complete":4,"fault":"kill","targets":["n1"],"verified":false,"detail":"inject: NOT VERIFIED: n1 still answers; heal: n1 back with full routes after 0.0s"}
{"client":-1,"type":"fault","outcome":"fail","invoke":5,"complete":6,"fault":"pause@snapshot","verified":false,"detail":"never fired: no snapshot event in the 20.0s the trigger was armed"}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := unhealedFaults(path)
	want := "partition-one+member-replace n2,n3: heal: routes full after 0.3s + NOT VERIFIED: n3-r1 not a current replica within 20.1s"
	if err != nil || len(got) != 1 || got[0] != want {
		t.Fatalf("%q, %v; want [%q]", got, err, want)
	}
}
