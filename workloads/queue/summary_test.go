package queue

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
)

// TestSummaryNamesWhatWasLost: the verdict sentence says in words what
// was lost or duplicated, with the values, or that nothing was.
func TestSummaryNamesWhatWasLost(t *testing.T) {
	cases := []struct {
		fixture string
		want    []string
	}{
		{"clean", []string{"nothing lost or duplicated: all 23 acknowledged messages reached each of 2 consumers", "2 producers published 25 values"}},
		{"lost", []string{"LOST 1 of 11 acknowledged messages", "(p0-11)"}},
		{"skipped", []string{"1 acknowledged messages never reached a drained consumer (p0-11)"}},
		{"dup_after_ack", []string{"DUPLICATED 1 deliveries after a confirmed AckSync (p0-5)"}},
		{"dup_stored_twice", []string{"DUPLICATED 1 values stored twice despite their Nats-Msg-Id (p0-5)"}},
		{"order_producer", []string{"queue-order: 1 message out of order"}},
		{"lost_unknown", []string{"not everything could be decided", "queue-lost"}},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			lines, err := workload{}.Summary(filepath.Join("testdata", c.fixture))
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Join(lines, "\n")
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("summary lacks %q:\n%s", w, text)
				}
			}
		})
	}
}

// TestCheckFromFiles: Check, as the pipeline and chaos check call it,
// judges the stored cell; a folder that is not a queue cell is an error.
func TestCheckFromFiles(t *testing.T) {
	res, err := workload{}.Check(filepath.Join("testdata", "lost"), checker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if checker.Worst(res) != checker.Invalid || res[0].Name != CheckLost || res[0].Counts["lost"] != 1 {
		t.Fatalf("lost fixture: %+v", res[0])
	}
	if _, err := (workload{}).Check(t.TempDir(), checker.Options{}); err == nil || !strings.Contains(err.Error(), "not a queue cell") {
		t.Fatalf("empty folder: %v", err)
	}
}

// TestWriteSeries: queue.csv has a row per second, the counts add up to
// the history's, pending is each consumer's sample, and faults are named.
func TestWriteSeries(t *testing.T) {
	c, err := Load(filepath.Join("testdata", "clean_excused"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), SeriesFile)
	if err := WriteSeries(path, c); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Join(rows[0], ",")
	if !strings.Contains(head, "latency_p99_ms,latency_max_ms,pending_total,pending_c0,pending_c1,faults") {
		t.Fatalf("header %s", head)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var last int64
	for _, op := range c.Ops {
		last = max(last, op.Complete)
	}
	if len(rows)-1 != int(last/1e9)+1 {
		t.Fatalf("%d rows for %d seconds", len(rows)-1, last/1e9+1)
	}
	sum := func(name string) int {
		n := 0
		for _, r := range rows[1:] {
			v, _ := strconv.Atoi(r[col[name]])
			n += v
		}
		return n
	}
	ix := newIndex(c)
	if got := sum("deliveries"); got != len(ix.dels) {
		t.Errorf("deliveries %d, history %d", got, len(ix.dels))
	}
	if got := sum("published"); got != 12 {
		t.Errorf("published %d, want 12", got)
	}
	// The kill from 1.5s to 3.0s shades seconds 1 to 3.
	for sec, want := range []string{"", "kill", "kill", "kill", ""} {
		if got := rows[sec+1][col["faults"]]; got != want {
			t.Errorf("second %d: faults %q, want %q", sec, got, want)
		}
	}
	// Second 4: c0 was sampled at 4.0s with one message awaiting an ack.
	if rows[5][col["pending_c0"]] != "1" || rows[5][col["pending_c1"]] != "" {
		t.Errorf("second 4 pending: %v", rows[5])
	}
	if rows[1][col["latency_p50_ms"]] == "" {
		t.Errorf("second 0 has deliveries but no latency: %v", rows[1])
	}
}
