package reportstest

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	attrRE = regexp.MustCompile(`(?i)\s(src|href|xlink:href|action|poster|data)\s*=\s*"([^"]*)"`)
	idRE   = regexp.MustCompile(`\sid="([^"]+)"`)
)

// CheckSelfContained fails t unless page fetches nothing: no script, link,
// import, url(), frame or image, no link out of the run folder, and its
// style and charts inline.
func CheckSelfContained(t testing.TB, page string) {
	t.Helper()
	for _, m := range attrRE.FindAllStringSubmatch(page, -1) {
		v := strings.ToLower(strings.TrimSpace(m[2]))
		if strings.Contains(v, "://") || strings.HasPrefix(v, "//") || strings.HasPrefix(v, "javascript:") {
			t.Errorf("%s=%q points outside the folder", m[1], m[2])
		}
	}
	for _, bad := range []string{"<script", "<link", "@import", "url(", "<iframe", "<img"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("page contains %q: it must not fetch anything", bad)
		}
	}
	if !strings.Contains(page, "<style>") || !strings.Contains(page, `<svg class="chart"`) {
		t.Error("page lacks its inline style or charts")
	}
}

// CheckLinks follows every link of page, the report of the run in dir:
// files relative to the run folder must exist, anchors must name an
// element of the page, and there must be at least minFiles file links.
func CheckLinks(t testing.TB, dir, page string, minFiles int) {
	t.Helper()
	ids := map[string]bool{}
	for _, m := range idRE.FindAllStringSubmatch(page, -1) {
		ids[m[1]] = true
	}
	files := 0
	for _, m := range attrRE.FindAllStringSubmatch(page, -1) {
		href := m[2]
		if anchor, ok := strings.CutPrefix(href, "#"); ok {
			if !ids[anchor] {
				t.Errorf("link to #%s, which is not on the page", anchor)
			}
			continue
		}
		u, err := url.Parse(href)
		if err != nil || u.IsAbs() || strings.HasPrefix(u.Path, "/") || strings.Contains(u.Path, "..") {
			t.Errorf("link %q is not a relative path inside the run folder", href)
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(u.Path))); err != nil {
			t.Errorf("link %q: %v", href, err)
		}
		files++
	}
	if files < minFiles {
		t.Errorf("only %d file links, want at least %d", files, minFiles)
	}
}
