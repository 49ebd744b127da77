package serve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetstream-chaos/jetstream-chaos/record"
)

// store is a store with one run in progress, latest pointing at it, and
// an index.
func store(t *testing.T) string {
	t.Helper()
	s := t.TempDir()
	run := filepath.Join(s, "20261204T150000Z-s1")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Base(run), filepath.Join(s, "latest")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s, "index.html"), []byte("<title>every run</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := record.WriteLive(run, record.Live{Cell: "direct-get-off", Phase: "workload", Line: "[direct-get-off] workload 3s/20s"}); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHandler: the live page, the run's live.json through latest, the
// store's index at /, nothing cached, and nothing outside the store.
func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler(store(t)))
	defer srv.Close()
	cases := []struct {
		path   string
		status int
		want   string
	}{
		{LivePath, 200, "live.json"},
		{"/latest/live.json", 200, `"phase":"workload"`},
		{"/", 200, "every run"},
		{"/../../etc/passwd", 404, ""},
		{"/nope", 404, ""},
	}
	for _, c := range cases {
		resp, err := http.Get(srv.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %d %.80q, want %d with %q", c.path, resp.StatusCode, b, c.status, c.want)
		}
		if cc := resp.Header.Get("Cache-Control"); c.status == 200 && cc != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", c.path, cc)
		}
	}
}
