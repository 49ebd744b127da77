// Package serve serves a store over HTTP on the loopback (chaos serve):
// the store's index.html, every run's report.html and every file, and the
// run in progress as it goes (/live, which polls the run's live.json:
// record.LiveFile). It reads files only; the runs write them.
package serve

import (
	_ "embed"
	"net/http"
)

//go:embed live.html
var livePage []byte

// LivePath is the page that follows a run in progress: the store's
// latest, or the run folder its ?run= names (runs/latest for a hunt).
const LivePath = "/live"

// Handler serves the store folder: /live, and every file under it (a
// folder's index.html, else its listing). Nothing is cached, so a page
// reloaded shows the run as it is now.
func Handler(store string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+LivePath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(livePage)
	})
	mux.Handle("/", http.FileServer(http.Dir(store)))
	return noStore(mux)
}

func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}
