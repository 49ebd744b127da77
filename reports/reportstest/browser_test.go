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
