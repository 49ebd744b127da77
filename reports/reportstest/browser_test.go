package reportstest

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The listener sees what it is there for: a page with a console error, an
// uncaught exception and a missing image is reported three times over.
func TestIntegrationBrowserCatchesProblems(t *testing.T) {
	NeedChromium(t)
	bin, _ := FindChromium()
	p := filepath.Join(t.TempDir(), "broken.html")
	body := `<!doctype html><title>broken</title><p>hello</p><img src="missing.png">` +
		`<script>console.error("boom"); throw new Error("bang");</script>`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	got, probs, _ := Browse(t, bin, ProfileDir(t), (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String(), "")
	all := strings.Join(probs, "\n")
	for _, w := range []string{`console.error: "boom"`, "exception: Uncaught", "bang", "failed load (Image)", "log network"} {
		if !strings.Contains(all, w) {
			t.Errorf("problems lack %q; got:\n%s", w, all)
		}
	}
	if !strings.Contains(got.Text, "hello") {
		t.Errorf("page text %q", got.Text)
	}
}

// The hover check sees what the mouse would: of two marks with a hover
// text, the one under a later shape is not on top.
func TestIntegrationBrowserHoverCovered(t *testing.T) {
	NeedChromium(t)
	bin, _ := FindChromium()
	p := filepath.Join(t.TempDir(), "hover.html")
	body := `<!doctype html><title>hover</title><svg width="300" height="100" viewBox="0 0 300 100">` +
		`<g class="m"><title>free</title><rect x="10" y="10" width="40" height="40" fill="#000" fill-opacity="0"/></g>` +
		`<g class="m"><title>covered</title><rect x="100" y="10" width="40" height="40" fill="#000" fill-opacity="0"/></g>` +
		`<rect x="90" y="0" width="80" height="80" fill="#ccc"/></svg>`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _, _ := Browse(t, bin, ProfileDir(t), (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String(), "", Hover{Selector: "g.m"})
	if h := got.Hovers[0]; h.Count != 2 || h.OnTop != 1 || strings.Join(h.Titles, ",") != "free,covered" {
		t.Errorf("hover facts %+v, want 2 marks, 1 on top", h)
	}
}
