package reports

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ChromiumPackage is the Debian package the browser test needs.
const chromiumPackage = "chromium"

// screenshotDir is where the browser test leaves its screenshots:
// $CHAOS_SCREENSHOTS, else a fixed folder under the system temp dir so a
// person can open them after `go test`.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("CHAOS_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "jetstream-chaos-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// profileDir is a throwaway browser profile. Not t.TempDir: Chromium's
// helpers may still be writing there as the test ends, and that must not
// fail the test; it is removed on a best-effort basis.
func profileDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "chaos-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := 0; i < 10 && os.RemoveAll(dir) != nil; i++ {
			time.Sleep(200 * time.Millisecond)
		}
	})
	return dir
}

// TestBrowserRendersReport opens report.html of the test run, and of a
// synthetic matrix with faults, harness errors and memory, in headless
// Chromium: the page must load with no console error, no exception and no
// failed load, show the verdict and its charts, and it is screenshotted.
func TestBrowserRendersReport(t *testing.T) {
	bin, ok := findChromium()
	if !ok {
		t.Skipf("headless Chromium not found (looked for chromium, chromium-browser, google-chrome; set $CHROMIUM to override): install Debian's package with `apt-get install -y %s`", chromiumPackage)
	}
	cases := []struct {
		name    string
		dir     func(t *testing.T) string
		want    []string // texts the page must show
		charts  int      // at least this many SVG charts
		minimum int      // page height in CSS px, at least
	}{
		{"testdata", func(t *testing.T) string { return unpackRun(t) },
			[]string{"Direct Get on:", "stale reads", "Direct Get off: none"}, 7, 1500},
		{"catchup-memory", func(t *testing.T) string {
			dir := unpackRun(t)
			writeCatchupResult(t, filepath.Join(dir, "direct-get-off"))
			return dir
		}, []string{"Memory per node"}, 9, 1500},
		{"matrix", func(t *testing.T) string { return writeSyntheticRun(t, syntheticMatrix()) },
			[]string{"did not run to the end", "Memory per node", "undecided"}, 8, 1500},
	}
	out := screenshotDir(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			if _, err := Write(dir); err != nil {
				t.Fatal(err)
			}
			b, err := startBrowser(bin, profileDir(t), 1280, 900)
			if err != nil {
				t.Fatalf("start %s: %v", bin, err)
			}
			defer b.close()
			abs, err := filepath.Abs(filepath.Join(dir, HTMLFile))
			if err != nil {
				t.Fatal(err)
			}
			u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
			if err := b.open(u); err != nil {
				t.Fatal(err)
			}
			var got struct {
				Text   string  `json:"text"`
				Charts int     `json:"charts"`
				Height float64 `json:"height"`
				Empty  int     `json:"empty"`
				Title  string  `json:"title"`
			}
			err = b.eval(`({text: document.body.innerText, title: document.title,
				charts: document.querySelectorAll('svg.chart').length,
				height: document.documentElement.scrollHeight,
				empty: [...document.querySelectorAll('svg.chart')].filter(s => s.getBoundingClientRect().width < 200).length})`, &got)
			if err != nil {
				t.Fatal(err)
			}
			if p := b.problems(); len(p) > 0 {
				t.Errorf("console errors:\n%s", strings.Join(p, "\n"))
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Text, w) {
					t.Errorf("page text lacks %q", w)
				}
			}
			if got.Charts < tc.charts {
				t.Errorf("%d charts rendered, want at least %d", got.Charts, tc.charts)
			}
			if got.Empty > 0 {
				t.Errorf("%d charts are narrower than 200px", got.Empty)
			}
			if got.Height < float64(tc.minimum) {
				t.Errorf("page is %.0fpx tall, want at least %d", got.Height, tc.minimum)
			}
			full := filepath.Join(out, "report-"+tc.name+".png")
			if err := b.screenshot(full, 0, 0); err != nil {
				t.Fatal(err)
			}
			top := filepath.Join(out, "report-"+tc.name+"-top.png")
			if err := b.screenshot(top, 0, 1000); err != nil {
				t.Fatal(err)
			}
			// The rest in viewport-sized slices, for reading at full size.
			for i, y := 1, 1000.0; y < got.Height && i <= 8; i, y = i+1, y+1000 {
				if err := b.screenshot(filepath.Join(out, fmt.Sprintf("report-%s-part%d.png", tc.name, i)), y, 1000); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%s: title %q, %d charts, %.0fpx tall; screenshots %s and %s", tc.name, got.Title, got.Charts, got.Height, full, top)
		})
	}
}
