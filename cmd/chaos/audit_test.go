package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// auditCase is one stored cell of testdata/audit and what `chaos check`
// must say of it: the exit code, and the verdict of each named checker
// (checkers not named are not held here; the package tests pin them).
type auditCase struct {
	dir      string
	exit     int
	verdicts map[string]string // checker name -> valid, invalid or unknown; "" when it must give no result
	// stdout, when set, must match the output.
	stdout string
	// stderr, when set, must match the whole error output: the cell is
	// refused, and stdout must then hold no verdict.
	stderr string
	// prepare, when set, makes the cell to check from a copy of dir (a
	// file too large to store) and returns its folder.
	prepare func(t *testing.T, dir string) string
	// long cases are skipped by go test -short, as the other long tests.
	long bool
}

// auditCases are the audit's cells. Each was a false positive, a false
// negative, a crash or a wrong dispatch before it was fixed; the row says
// what it must be.
var auditCases = []auditCase{
	// A clean queue cell, with and without a trailing slash: the slash once
	// made the cell's own folder the run folder, so kv-update judged it.
	{dir: "q/q0_clean", exit: record.ExitValid, verdicts: map[string]string{"queue-lost": "valid", "queue-redelivery": "valid"}},
	{dir: "q/q0_clean/", exit: record.ExitValid, verdicts: map[string]string{"queue-lost": "valid", "queue-redelivery": "valid"}},
	// The control of c3_stepdown: no step-down, the other follower stayed
	// a follower, and 2.34 GiB is above its bound.
	{dir: "cu_min/c3b_control_no_stepdown", exit: record.ExitInvalid, verdicts: map[string]string{"catchup-memory": "invalid"}},
	{dir: "cu_min/c3b_control_no_stepdown/", exit: record.ExitInvalid, verdicts: map[string]string{"catchup-memory": "invalid"}},
	// An R2 bucket: the third server holds no copy and is no replica.
	{dir: "kv/rd3_r2_bucket_third_node_no_copy", exit: record.ExitValid, verdicts: map[string]string{"replica-divergence": "valid"},
		stdout: `n3: no copy, not a replica of the stream`},
	// replicas.json names a replica by a path: said so, not "the run
	// ended before its finish".
	{dir: "kv/b6_node_name_path", exit: record.ExitUnknown, verdicts: map[string]string{"replica-divergence": "unknown", "linearizability": "valid"},
		stdout: `replicas.json: replica 1 is named "\.\./b6_node_name_path/replica-n2": not a server name`},
	// A late nak of the first delivery, sent after the ack wait had
	// redelivered the message, redelivers it again at once (nats-server
	// consumer.go processNak): not an early redelivery.
	{dir: "q/q1min_stale_nak", exit: record.ExitValid, verdicts: map[string]string{"queue-redelivery": "valid"}},
	// p0-2 refused with 10077, yet delivered and stored.
	{dir: "q/q5_failed_publish_applied", exit: record.ExitInvalid, verdicts: map[string]string{"queue-unexpected": "invalid", "queue-lost": "valid"},
		stdout: `queue-unexpected +1 value refused at every publish attempt, yet delivered or stored`},
	// 65 consumers, one more than --consumers allows: the checkers keep a
	// bit per consumer, so the 65th passed unjudged. A malformed stored
	// file is refused as a malformed history line is: one line, exit 4.
	{dir: "q/q7b_65_consumers_last_skipped", exit: record.ExitHarness,
		stderr: `^chaos: testdata/audit/q/q7b_65_consumers_last_skipped/queue.json: 65 consumers, but the workload creates 1\.\.64\n$`},

	// stream.jsonl cut short at line 12 while p0-11, acknowledged and
	// delivered to no consumer, was being written: unknown, the reasons
	// naming the torn line as kv-update's read-back check does (they said
	// "missing or incomplete" and "fewer than the stream counted").
	{dir: "q/q8_torn_readback", exit: record.ExitUnknown, verdicts: map[string]string{"queue-lost": "unknown", "queue-stream-integrity": "unknown"},
		stdout: `queue-lost +.*unknown: the read-back holds 10 messages; stream\.jsonl is cut short at line 12: the read-back did not finish, so an acknowledged value`},

	// kv-update's deletes check (branch fix-kvdeletes).
	// A keep-all bucket whose read-back stopped before the delete's marker:
	// whether the value survived its delete cannot be decided (it was
	// invalid delete_not_honoured).
	{dir: "kv/d1_incomplete_readback_delete", exit: record.ExitUnknown,
		verdicts: map[string]string{"deletes": "unknown", "linearizability": "valid"},
		stdout:   `unknown  deletes +for 1 key\(s\) the newest message read back is a value older than a marker known stored, but the read-back was not read in full`},
	// A delete that timed out, which a get saw applied at a sequence the
	// observers missed, then a create over its marker: valid, as
	// linearizability says (deletes said create_over_live_key). The
	// cell is valid: stream-integrity places the marker there by the same
	// settlement (it was unknown: a read of the marker, and the create
	// after it, needed the sequence nobody saw).
	{dir: "kv/d2_info_delete_seen_by_get_then_create", exit: record.ExitValid,
		verdicts: map[string]string{"deletes": "valid", "linearizability": "valid", "stream-integrity": "valid"},
		stdout: `stream-integrity .*1 of 3 sequences nobody saw: the history verifies every judgement that needs them \(0 of 2 acknowledged writes and 1 of 3 reads verified by the history alone, 1 indeterminate writes placed there by the read that saw them\)` +
			`(?s:.*)valid    deletes +every delete and purge honoured \(0 acknowledged markers, 1 indeterminate ones settled as stored\)`},
	// The other way round: an update that timed out, which a get saw
	// applied, then a create over its live value: invalid, as
	// linearizability says (deletes said valid); stream-integrity finds
	// the create over the value by the same settlement (it was unknown).
	{dir: "kv/d3_create_over_info_value_seen_by_get", exit: record.ExitInvalid,
		verdicts: map[string]string{"deletes": "invalid", "linearizability": "invalid", "stream-integrity": "invalid"},
		stdout:   `invalid  deletes +1 create_over_live_key`},
	// The target sent no memory sample from its restart to the heal: its
	// peak is not known (it once passed as "peaked at 0B").
	{dir: "cu_min/c2_target_silent", exit: record.ExitUnknown, verdicts: map[string]string{"catchup-memory": "unknown"},
		stdout: `catchup-memory +n2 sent no RSS sample between its restart at 39\.6s and the heal at 70\.0s`},
	// --nemesis stepdown: n1 led the stream, and served the catch-up, until
	// the step-down gave it to n3; no node stayed a follower to be the
	// baseline (n1 as the baseline once raised the bound to 3 GiB and
	// passed 2.34 GiB).
	{dir: "cu_min/c3_stepdown", exit: record.ExitUnknown, verdicts: map[string]string{"catchup-memory": "unknown"},
		stdout: `catchup-memory +n2 peaked at 2\.34GiB .*no node stayed a follower from the restart to the heal`},
	// Limits: a peak held at the limit or cut by an OOM kill is censored,
	// the demand at least the limit. seed-loop-2gib's 1 GiB is below the bound
	// (unknown; it once passed at 1019.52 MiB), 1.5 GiB above it (invalid),
	// and a target well under its limit is judged by its peak.
	{dir: "cu_min/c4_limit_held", exit: record.ExitInvalid, verdicts: map[string]string{"catchup-memory": "unknown", "oom-kill": "invalid"},
		stdout: `held within 5% of its 1GiB limit: its demand was at least the 1GiB limit, which is not above the bound`},
	{dir: "cu_min/c4b_limit_oom_above_bound", exit: record.ExitInvalid, verdicts: map[string]string{"catchup-memory": "invalid"},
		stdout: `its demand was at least the 1\.5GiB limit, above the bound of 1\.09GiB`},
	{dir: "cu_min/c4c_limit_clean", exit: record.ExitUnknown, verdicts: map[string]string{"catchup-memory": "valid", "oom-kill": "valid"}},
	// Two runs of one --backlog: no slope to fit (the runs' streams differ
	// by 4 MiB, which once fitted 10 bytes of RSS per byte), as one cell
	// has none; the cells' own checks are unknown (nothing was read back).
	{dir: "cu_min/c1_runs", exit: record.ExitUnknown, verdicts: map[string]string{"memory-vs-backlog": "", "catchup-memory": "valid"}},
	// memory-vs-backlog under a memory limit (branch fix-catchfollow): a
	// peak the limit held down is the least the demand was. Held at 1 GiB
	// at 2 and 4 GiB, the line is flat only if those demands were small
	// (it passed as flat, 0.10); an OOM kill between two samples at 2 GiB
	// (sampled 520 MiB) under 1.5 GiB makes it steep whatever the demand
	// was (it passed as flat, 0.12). The exits follow the cells' own
	// oom-kill checks.
	{dir: "cu_min/c5_slope_held_flat", exit: record.ExitInvalid, verdicts: map[string]string{"memory-vs-backlog": "unknown"},
		stdout: `unknown +memory-vs-backlog .*0\.10 bytes of RSS per byte over 4 backlogs, .*undecided: flat at these demands, but it grows with the backlog if v2\.15\.3_backlog-2147483648's demand was above 4\.58GiB or v2\.15\.3_backlog-4294967296's above 1\.21GiB`},
	{dir: "cu_min/c5b_slope_oom_steep", exit: record.ExitInvalid, verdicts: map[string]string{"memory-vs-backlog": "invalid"},
		stdout: `invalid +memory-vs-backlog .*0\.71 bytes of RSS per byte over 3 backlogs, the demand of v2\.15\.3_backlog-2147483648 \(which was OOM-killed once\) at its least, 1\.5GiB, grows with the backlog`},
	// Cells that give no point are named, with why (they were left out
	// silently); a line they leave with one backlog has no slope, which is
	// said (it gave no result, as a run of one backlog).
	{dir: "cu_min/c6_slope_left_out", exit: record.ExitUnknown, verdicts: map[string]string{"memory-vs-backlog": "valid"},
		stdout: `over 2 backlogs, flat \(left out: v2\.11\.8_backlog-2147483648 \(the target never restarted, so no catch-up was measured\); v2\.11\.8_backlog-4294967296 \(n3 sent no RSS sample from its restart to the heal\)\); left out, their release and backlog unknown: v2\.11\.8_no_backlog \(catchup\.json records no --backlog\)`},
	{dir: "cu_min/c6b_slope_one_backlog_left", exit: record.ExitUnknown, verdicts: map[string]string{"memory-vs-backlog": "unknown"},
		stdout: `v2\.11\.8 \(Direct Get off\): no slope: its points hold 1 of its 2 --backlog settings \(left out: v2\.11\.8_backlog-2147483648 \(the target never restarted`},

	// kv-update's stream: its loaders, merge and checks.
	// The read-back failed before the stream's last sequence was learnt
	// (observed.jsonl's last_seq 0): what the stream holds is unknown, not
	// empty, and no acknowledged write is "lost". Nor is k0's delete
	// honoured: nothing read back shows that no older value survived it
	// (deletes said "every delete and purge honoured").
	{dir: "kv/i1min_readback_failed", exit: record.ExitUnknown,
		verdicts: map[string]string{"stream-integrity": "unknown", "read-back": "unknown", "linearizability": "valid", "deletes": "unknown"},
		stdout: `unknown +stream-integrity +the read-back failed: nothing was read back or observed and the stream's last sequence is unknown, so loss cannot be decided` +
			`(?s:.*)unknown +deletes +for 1 key\(s\) with a marker known stored, the read-back, not read in full, stopped before the marker holding no message of the key at or after it`},
	// A put acknowledged at revision 10^12 (a stream may start at any
	// first sequence) and 1,000,000 gets of it: judged in parts (over
	// checker.DefaultPartOps) in memory that does not grow with the
	// sequence, as whole. Its sequences below 10^12 nobody saw, and
	// nothing needs them. No replicas were stored: replica-divergence is
	// unknown, so the exit is 2.
	{dir: "kv/b3c_huge_seq_cli_parts", exit: record.ExitUnknown, prepare: hugeSeqHistory, long: true,
		verdicts: map[string]string{"stream-integrity": "valid", "read-back": "valid", "linearizability": "valid", "session": "valid",
			"stale-read": "valid", "deletes": "valid", "replica-divergence": "unknown"},
		stdout: `valid +linearizability +all 1 keys linearizable \(1000001 ops`},
	// stream.jsonl's last line is cut short (so is history.jsonl's): the
	// read-back did not finish, which the read-back check says; the
	// observers saw every sequence, so the stream is judged. The read-back
	// reached seq 4, past k0's marker at 3, in order from the first, and
	// holds no older value of k0: the delete is honoured.
	{dir: "kv/b4_truncated_last_line", exit: record.ExitUnknown,
		verdicts: map[string]string{"read-back": "unknown", "stream-integrity": "valid", "linearizability": "valid", "deletes": "valid"},
		stdout:   `read-back +the stream could not be read back in full \(1 entries read; stream.jsonl is cut short at line 3: the read-back did not finish\)`},
	// A bucket keeping 2 revisions lost its newest write: that loss alone,
	// not also its older revision "kept too long" (no retained_extra).
	{dir: "kv/rb2_hist2_lost_write_spurious_extra", exit: record.ExitInvalid,
		verdicts: map[string]string{"read-back": "invalid", "stream-integrity": "invalid"},
		stdout:   `invalid +read-back +1 last_value_lost in the read-back of 1 keys \(the stream keeps 2 revision\(s\) per key\)`},
	// observed.jsonl out of sequence order: no run writes it so, and its
	// head's claims cannot be trusted; malformed input, one line naming
	// file and line, as a malformed history.jsonl or stream.jsonl.
	{dir: "kv/rb3_observed_unsorted_changed", exit: record.ExitHarness,
		stderr: `(?m)^chaos: \S*kv/rb3_observed_unsorted_changed/observed.jsonl:3: sequence 1 after 3: the observers' entries are written in increasing sequence order\n$`},

	// The nodes' health (branch floor-observer): every cell the pipeline
	// observed holds nodes.jsonl, and node-health judges it. A real
	// kv-update run's readings are clean; the same with n2 OOM-killed at
	// 6 s, as Docker reports it, is an anomaly whatever the kv checks say
	// (the OOM kill was invisible to every check of a kv-update cell). A
	// cell stored before the observer has no readings and no node-health.
	{dir: "kv/h0_observed_clean", exit: record.ExitValid, verdicts: map[string]string{"node-health": "valid", "linearizability": "valid"},
		stdout: `valid +node-health +no OOM kill, restart or death nobody asked for on n1, n2, n3 \(126 state readings\)`},
	{dir: "kv/h1_oom_kill", exit: record.ExitInvalid, verdicts: map[string]string{"node-health": "invalid", "linearizability": "valid", "stream-integrity": "valid"},
		stdout: `invalid +node-health +1 OOM kill\(s\), 0 restart\(s\) by the runtime and 0 death\(s\) nobody asked for: n2 OOM kill #1 \(seen between 5\.8s and 6\.0s\)`},
	{dir: "kv/rd3_r2_bucket_third_node_no_copy", exit: record.ExitValid, verdicts: map[string]string{"node-health": ""}},
}

var verdictLine = regexp.MustCompile(`(?m)^  (valid|invalid|unknown)\s+(\S+)\s`)

// TestAuditCells runs `chaos check` on every audit cell and holds each
// named checker's verdict and the exit code.
func TestAuditCells(t *testing.T) {
	for _, c := range auditCases {
		t.Run(c.dir, func(t *testing.T) {
			if c.long && testing.Short() {
				t.Skip("a long case: it runs without -short")
			}
			// chaos check writes beside the cell (porcupine's pages): judge
			// a copy of the cell's folder, never the testdata itself.
			root := t.TempDir()
			top := strings.SplitN(c.dir, "/", 2)[0]
			if err := os.CopyFS(filepath.Join(root, "testdata", "audit", top), os.DirFS(filepath.Join("testdata", "audit", top))); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join("testdata", "audit", c.dir)
			if strings.HasSuffix(c.dir, "/") {
				dir += "/"
			}
			if c.prepare != nil {
				dir = c.prepare(t, filepath.Join(root, dir))
			}
			code, stdout, stderr := chaos(t, root, "check", dir)
			if code != c.exit {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr: %s", code, c.exit, stdout, stderr)
			}
			got := map[string]string{}
			for _, m := range verdictLine.FindAllStringSubmatch(stdout, -1) {
				got[m[2]] = m[1]
			}
			for name, want := range c.verdicts {
				if got[name] != want {
					t.Errorf("%s: %q, want %q\nstdout:\n%s", name, got[name], want, stdout)
				}
			}
			if c.stdout != "" && !regexp.MustCompile(c.stdout).MatchString(stdout) {
				t.Errorf("stdout does not match %q:\n%s", c.stdout, stdout)
			}
			if c.stderr == "" {
				return
			}
			if !regexp.MustCompile(c.stderr).MatchString(stderr) {
				t.Errorf("stderr %q does not match %q", stderr, c.stderr)
			}
			if verdictLine.MatchString(stdout) {
				t.Errorf("a refused cell was judged:\n%s", stdout)
			}
		})
	}
}

// No JSON file in a testdata folder of the repository names a folder of
// the machine it was recorded on (catchup.json once stored the cluster's
// folder as an absolute path; it is now relative to the cell).
func TestTestdataHoldsNoMachinePaths(t *testing.T) {
	machine := regexp.MustCompile(`/(tmp|root|home|work)/`)
	n := 0
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir() || !strings.Contains(filepath.ToSlash(path), "/testdata/"):
			return nil
		case filepath.Ext(path) != ".json" && filepath.Ext(path) != ".jsonl":
			return nil
		}
		n++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m := machine.Find(b); m != nil {
			t.Errorf("%s holds a path of the machine it was recorded on (%s...)", path, m)
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walked %d files: %v", n, err)
	}
}

// hugeSeqHistory copies the cell to a temporary folder and writes its
// history.jsonl (150 MB, too large to store), as the audit's generator
// did: a put acknowledged at revision S = 10^12, then 1,000,000 gets of it.
func hugeSeqHistory(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, f.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(out, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	const s = 1_000_000_000_000
	fmt.Fprintf(w, `{"client":0,"node":"n1","type":"put","key":"k0","value":"c0-1","rev":%d,"outcome":"ok","invoke":1000,"complete":2000}`+"\n", s)
	for i := range 1_000_000 {
		fmt.Fprintf(w, `{"client":0,"node":"n1","type":"get","key":"k0","value":"c0-1","rev":%d,"outcome":"ok","invoke":%d,"complete":%d}`+"\n",
			s, 3000+2*i, 3001+2*i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}
