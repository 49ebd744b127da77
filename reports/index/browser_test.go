package index

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
)

// indexFacts is what the browser reads of the page: rows and trend lines,
// all and shown (not hidden by a filter), the dots drawn and the address.
type indexFacts struct {
	Rows, RowsShown     int
	Lines, LinesShown   int
	Dots, ChartWidth    int
	Hash, Title, Filter string
}

const factsJS = `(() => {
	const shown = els => els.filter(e => e.getClientRects().length > 0).length;
	const rows = [...document.querySelectorAll('#runs tbody tr')];
	const lines = [...document.querySelectorAll('svg.trend g.series')];
	const svg = document.querySelector('svg.trend');
	return {Rows: rows.length, RowsShown: shown(rows), Lines: lines.length, LinesShown: shown(lines),
		Dots: document.querySelectorAll('svg.trend circle').length,
		ChartWidth: svg ? Math.round(svg.getBoundingClientRect().width) : 0,
		Hash: location.hash, Title: document.title, Filter: document.getElementById('shown').textContent};
})()`

// filterJS picks a value in one filter as a person would: the select
// changes and says so.
func filterJS(name, value string) string {
	return fmt.Sprintf(`(() => { const s = document.querySelector('select[data-filter=%q]');
		s.value = %q; s.dispatchEvent(new Event('change')); return s.value; })()`, name, value)
}

// TestIntegrationIndexInBrowser builds the index of a store of three real
// runs (findings' stored runs: one valid, two invalid on two releases)
// and of the fixture nightly store, opens each in headless Chromium from
// its file, and checks that every run is a row, that a filter hides the
// rows (and trend lines) it should, and that the trend chart is drawn.
// Screenshots go to $CHAOS_SCREENSHOTS (default
// /tmp/jetstream-chaos-screenshots), named index-<case>.png.
func TestIntegrationIndexInBrowser(t *testing.T) {
	reportstest.NeedChromium(t)
	bin, _ := reportstest.FindChromium()
	shots := os.Getenv("CHAOS_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(os.TempDir(), "jetstream-chaos-screenshots")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	findingsRuns := func(t *testing.T, dst string) {
		for _, r := range []string{"clean/20261201T163135Z-s7", "failed-write-applied/20261201T163346Z-s42", "lost-stream-head/20261201T162253Z-s18"} {
			CopyRun(t, filepath.Join("..", "..", "findings", "testdata", filepath.FromSlash(r)), dst)
		}
	}
	nightlyRuns := func(t *testing.T, dst string) {
		entries, err := os.ReadDir(store)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				CopyRun(t, filepath.Join(store, e.Name()), dst)
			}
		}
	}
	cases := []struct {
		name          string
		fill          func(t *testing.T, dst string)
		rows, lines   int
		filter, value string
		// rows and lines the filter leaves shown
		rowsShown, linesShown int
	}{
		{name: "three-runs", fill: findingsRuns, rows: 3, lines: 3, filter: "verdict", value: "invalid", rowsShown: 2, linesShown: 3},
		{name: "nightly", fill: nightlyRuns, rows: 8, lines: 5, filter: "release", value: "v2.15.3", rowsShown: 2, linesShown: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			tc.fill(t, dir)
			if _, err := Write(dir); err != nil {
				t.Fatal(err)
			}
			u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, FileName))}).String()
			before, after, probs := browseIndex(t, bin, u, tc.filter, tc.value, filepath.Join(shots, "index-"+tc.name))
			if len(probs) > 0 {
				t.Errorf("problems while loading the page:\n%s", strings.Join(probs, "\n"))
			}
			if before.Rows != tc.rows || before.RowsShown != tc.rows || before.Filter != fmt.Sprint(tc.rows) {
				t.Errorf("before filtering: %d rows, %d shown, the count says %s; want %d of each", before.Rows, before.RowsShown, before.Filter, tc.rows)
			}
			if before.Lines != tc.lines || before.LinesShown != tc.lines || before.Dots < tc.lines || before.ChartWidth < 600 {
				t.Errorf("trend: %d lines, %d shown, %d dots, %d px wide; want %d lines shown, a dot each at least, 600 px",
					before.Lines, before.LinesShown, before.Dots, before.ChartWidth, tc.lines)
			}
			if after.RowsShown != tc.rowsShown || after.LinesShown != tc.linesShown || after.Filter != fmt.Sprint(tc.rowsShown) {
				t.Errorf("%s=%s shows %d rows (the count says %s) and %d lines; want %d and %d",
					tc.filter, tc.value, after.RowsShown, after.Filter, after.LinesShown, tc.rowsShown, tc.linesShown)
			}
			if want := "#" + tc.filter + "=" + url.QueryEscape(tc.value); after.Hash != want {
				t.Errorf("address %q after filtering, want %q", after.Hash, want)
			}
			t.Logf("%q: %d rows, %d lines; %s=%s leaves %d rows, %d lines; screenshots %s-{all,filtered}.png",
				before.Title, before.Rows, before.Lines, tc.filter, tc.value, after.RowsShown, after.LinesShown, filepath.Join(shots, "index-"+tc.name))
		})
	}
}

// browseIndex opens u in a fresh headless Chromium, reads the page, sets
// one filter, reads it again, and screenshots it before and after
// (shot-all.png, shot-filtered.png). probs are the exceptions and console
// errors seen meanwhile. The browser is closed before it returns.
func browseIndex(t *testing.T, bin, u, filter, value, shot string) (before, after indexFacts, probs []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Root in a container: Chromium needs --no-sandbox.
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(reportstest.ProfileDir(t)), chromedp.WindowSize(1280, 900))...)
	defer cancelAlloc()
	var mu sync.Mutex
	listen := func(ev any) {
		var s string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			s = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				s += " " + ev.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type != runtime.ConsoleAPICalledTypeError {
				return
			}
			s = "console.error"
			for _, a := range ev.Args {
				s += " " + string(a.Value) + a.Description
			}
		default:
			return
		}
		mu.Lock()
		probs = append(probs, s)
		mu.Unlock()
	}
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithListener(listen))
	defer cancelBrowser()
	defer func() {
		cctx, cc := context.WithTimeout(bctx, 20*time.Second)
		defer cc()
		_ = chromedp.Cancel(cctx)
	}()
	if err := chromedp.Do(bctx, chromedp.Navigate(u)); err != nil {
		t.Fatalf("open %s: %v", u, err)
	}
	read := func(name string) indexFacts {
		f, err := chromedp.Run(bctx, chromedp.Evaluate[indexFacts](factsJS))
		if err != nil {
			t.Fatalf("read the page: %v", err)
		}
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		if err := os.WriteFile(shot+"-"+name+".png", png, 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	before = read("all")
	got, err := chromedp.Run(bctx, chromedp.Evaluate[string](filterJS(filter, value)))
	if err != nil || got != value {
		t.Fatalf("set %s to %q: got %q, %v", filter, value, got, err)
	}
	after = read("filtered")
	mu.Lock()
	defer mu.Unlock()
	return before, after, append([]string(nil), probs...)
}
