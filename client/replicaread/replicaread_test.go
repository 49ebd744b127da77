package replicaread

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetstream-chaos/jetstream-chaos/checker/replicas"
	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

// TestLoad: what replicas.json names is checked before it
// names a file, a listed replica file that is missing is said to be
// missing (not "the run ended before its finish"), and a server that cells
// of older versions recorded as holding no copy is not a replica.
func TestLoad(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(t *testing.T, dir string)
		err     string // "" if it loads
		check   func(t *testing.T, reps []replicas.Replica, reads []replicas.Reading)
		replace [2]string // in replicas.json
	}{
		{name: "clean", check: func(t *testing.T, reps []replicas.Replica, reads []replicas.Reading) {
			if len(reps) != 3 || reads != nil {
				t.Errorf("%d replicas, reads %v", len(reps), reads)
			}
		}},
		{name: "a path for a node name", replace: [2]string{`"node": "n1"`, `"node": "../clean/replica-n2"`}, err: `not a server name`},
		{name: "a node named twice", replace: [2]string{`"node": "n1"`, `"node": "n2"`}, err: `repeated`},
		{name: "a listed file missing", edit: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "replica-n3.jsonl")); err != nil {
				t.Fatal(err)
			}
		}, err: "replicas.json lists n3, but replica-n3.jsonl is missing"},
		{name: "no copy, as older cells said it", edit: func(t *testing.T, dir string) {
			writeFile(t, dir, File, `[{"node":"n1","complete":true,"state":{"messages":2,"first_seq":4,"last_seq":5}},
				{"node":"n2","complete":true,"state":{"messages":2,"first_seq":4,"last_seq":5}},
				{"node":"n3","complete":false,"error":"the server reports no copy of KV_chaos"}]`)
		}, check: func(t *testing.T, reps []replicas.Replica, _ []replicas.Reading) {
			if !reps[2].NotReplica || reps[2].Error != "" || reps[0].NotReplica {
				t.Errorf("%+v", reps)
			}
		}},
		{name: "no copy although a peer", edit: func(t *testing.T, dir string) {
			writeFile(t, dir, File, `[{"node":"n1","complete":true},{"node":"n2","complete":true},
				{"node":"n3","complete":false,"error":"the server reports no copy of KV_chaos although it is one of its peers"}]`)
		}, check: func(t *testing.T, reps []replicas.Replica, _ []replicas.Reading) {
			if reps[2].NotReplica {
				t.Errorf("a peer without its copy read as not a replica: %+v", reps[2])
			}
		}},
		{name: "reads kept", edit: func(t *testing.T, dir string) {
			writeFile(t, dir, ReadingsFile, `[{"after_ns":0,"differ":true,"summary":"x"},{"after_ns":2000000000,"differ":false,"summary":"y"}]`)
		}, check: func(t *testing.T, _ []replicas.Replica, reads []replicas.Reading) {
			if len(reads) != 2 || !reads[0].Differ || reads[1].Differ {
				t.Errorf("%+v", reads)
			}
		}},
		{name: "reads malformed", edit: func(t *testing.T, dir string) { writeFile(t, dir, ReadingsFile, `[{`) }, err: ReadingsFile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyCell(t, "clean")
			if c.replace[0] != "" {
				b, err := os.ReadFile(filepath.Join(dir, File))
				if err != nil {
					t.Fatal(err)
				}
				writeFile(t, dir, File, strings.Replace(string(b), c.replace[0], c.replace[1], 1))
			}
			if c.edit != nil {
				c.edit(t, dir)
			}
			reps, reads, err := Load(dir)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || errors.Is(err, os.ErrNotExist) {
					t.Fatalf("error %v, want one naming %q (and not 'not exist')", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, reps, reads)
		})
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUntilAgree: replicas that differ are read again until they agree
// or the bound passes; replicas that agree are read once.
func TestUntilAgree(t *testing.T) {
	st := func(last uint64) *replicas.State {
		return &replicas.State{Messages: last, FirstSeq: 1, LastSeq: last}
	}
	reading := func(lasts ...uint64) []replicas.Replica {
		var reps []replicas.Replica
		for n, l := range lasts {
			reps = append(reps, replicas.Replica{Node: "n" + string(rune('1'+n)), State: st(l), Complete: true})
		}
		return reps
	}
	cases := []struct {
		name     string
		readings [][]replicas.Replica // the last one repeats
		bound    time.Duration
		reads    int  // 0: any number (it depends on the clock); the loop ends
		differ   bool // at the last read
	}{
		{"agree at once", [][]replicas.Replica{reading(5, 5, 5)}, time.Minute, 1, false},
		{"late by one, then agree", [][]replicas.Replica{reading(4, 5, 5), reading(4, 5, 5), reading(5, 5, 5)}, time.Minute, 3, false},
		{"behind past the bound", [][]replicas.Replica{reading(4, 5, 5)}, 30 * time.Millisecond, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, heard := 0, 0
			read := func(context.Context) []replicas.Replica {
				r := c.readings[min(n, len(c.readings)-1)]
				n++
				return r
			}
			_, reads := UntilAgree(context.Background(), read, c.bound, 10*time.Millisecond,
				func(replicas.Reading) { heard++ })
			if (c.reads > 0 && len(reads) != c.reads) || (c.reads == 0 && len(reads) < 1) ||
				reads[len(reads)-1].Differ != c.differ || heard != len(reads)-1 {
				t.Fatalf("%d reads (last differs %v), told of %d; want %d reads, last differs %v",
					len(reads), reads[len(reads)-1].Differ, heard, c.reads, c.differ)
			}
		})
	}
}

// TestJszState: a server's own state of the bucket's stream, from its
// /jsz; nil where it holds no copy; an error where /jsz did not answer 200.
func TestJszState(t *testing.T) {
	const jsz = `{"account_details":[{"name":"$G","id":"$G","stream_detail":[
		{"name":"OTHER","state":{"messages":1}},
		{"name":"KV_chaos","state":{"messages":7,"bytes":300,"first_seq":3,"last_seq":10,"num_deleted":1}}]}]}`
	cases := []struct {
		name   string
		answer func(w http.ResponseWriter)
		want   *replicas.State
		errHas string
	}{
		{"holds a copy", func(w http.ResponseWriter) { _, _ = w.Write([]byte(jsz)) },
			&replicas.State{Messages: 7, Bytes: 300, FirstSeq: 3, LastSeq: 10, Deleted: 1}, ""},
		{"holds none", func(w http.ResponseWriter) { _, _ = w.Write([]byte(`{"account_details":[]}`)) }, nil, ""},
		{"unavailable", func(w http.ResponseWriter) { http.Error(w, "JetStream not enabled", http.StatusServiceUnavailable) },
			nil, "503 Service Unavailable: JetStream not enabled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { c.answer(w) }))
			defer srv.Close()
			rd := Reader{Stream: "KV_chaos", Nodes: []cluster.Node{{Name: "n1", MonitorURL: srv.URL}}}
			got, err := rd.jszState(context.Background(), 0)
			switch {
			case c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)):
				t.Errorf("err %v, want one saying %q", err, c.errHas)
			case c.errHas == "" && err != nil:
				t.Errorf("err %v", err)
			case (got == nil) != (c.want == nil) || got != nil && *got != *c.want:
				t.Errorf("state %+v, want %+v", got, c.want)
			}
		})
	}
}

// copyCell copies testdata/<cell> (a kv-update cell's replica files) to a
// temporary directory.
func copyCell(t *testing.T, cell string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", cell)
	files, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, f.Name(), string(b))
	}
	return dir
}
