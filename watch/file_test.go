package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadEvents(t *testing.T) {
	dir := t.TempDir()
	evs := []Event{{Kind: LeaderChange, At: 3 * time.Second, Node: "n3", From: "n1", Line: "[INF] new stream leader", Source: "log"},
		{Kind: Restart, At: 7 * time.Second, Node: "n3", Source: "poll"}}
	good := filepath.Join(dir, "good.jsonl")
	if err := WriteEvents(good, evs); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, body string // body "": the written file; "-": no file
		events     int
		err        string
	}{
		{"written", "", 2, ""},
		{"not watched", "-", 0, ""},
		{"the catch-up workload's", `{"t_ms":3934,"node":"n1","kind":"kill"}` + "\n", 0, `:1: not an event of the cluster's watcher (kind "kill", source "")`},
		{"no kind", `{"at_ns":1,"source":"poll"}` + "\n", 0, `:1: not an event of the cluster's watcher (kind "", source "poll")`},
		{"second line torn", `{"kind":"restart","at_ns":1,"source":"poll"}` + "\n" + `{"kind":"rest`, 0, ":2: unexpected end of JSON input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := good
			switch tc.body {
			case "":
			case "-":
				path = filepath.Join(dir, "missing.jsonl")
			default:
				path = filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
				if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ReadEvents(path)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.err != "" && (err == nil || err.Error() != path+tc.err):
				t.Fatalf("error %v, want %q", err, path+tc.err)
			case len(got) != tc.events:
				t.Errorf("%d events, want %d", len(got), tc.events)
			}
			if tc.body == "" && (got[0] != evs[0] || got[1] != evs[1]) {
				t.Errorf("read back %+v, wrote %+v", got, evs)
			}
		})
	}
}
