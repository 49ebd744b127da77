package serve

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/jetstream-chaos/jetstream-chaos/record"
	"github.com/jetstream-chaos/jetstream-chaos/reports/reportstest"
)

// TestIntegrationServeShowsTheRunInProgress: in headless Chromium, /live
// shows the run's live line, then, as the run rewrites live.json, the new
// line and a fault window that appears while it is in effect, and at the
// end the link to the report.
func TestIntegrationServeShowsTheRunInProgress(t *testing.T) {
	reportstest.NeedChromium(t)
	bin, _ := reportstest.FindChromium()
	s := store(t)
	run := filepath.Join(s, "latest")
	srv := httptest.NewServer(Handler(s))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(reportstest.ProfileDir(t)),
		chromedp.WindowSize(1000, 700))...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	wait := func(what, js string) {
		t.Helper()
		wctx, cancel := context.WithTimeout(bctx, 20*time.Second)
		defer cancel()
		if _, err := chromedp.Run(wctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
			body, _ := chromedp.Run(bctx, chromedp.Text("body"))
			t.Fatalf("%s: %v; the page says:\n%s", what, err, body)
		}
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(srv.URL+LivePath)); err != nil {
		t.Fatal(err)
	}
	wait("the first line", `document.getElementById('line').textContent.includes('workload 3s/20s') && document.querySelectorAll('li.window').length === 0`)

	live := record.Live{Cell: "direct-get-off", Phase: "workload", Line: "[direct-get-off] workload 7s/20s  fault kill", Fault: "kill n1",
		Windows: []record.LiveWindow{{Fault: "kill n1", Start: 4.2}}, Elapsed: 7}
	if err := record.WriteLive(run, live); err != nil {
		t.Fatal(err)
	}
	wait("the line changing and the window appearing", `document.getElementById('line').textContent.includes('workload 7s/20s')
		&& document.querySelectorAll('li.window.open[data-fault="kill n1"]').length === 1
		&& document.querySelectorAll('#timeline rect.window.open').length === 1
		&& document.getElementById('fault').textContent === 'fault in effect: kill n1'`)
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("CHAOS_SCREENSHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "serve-live.png"), shot, 0o644)
	}

	live.Windows[0].End, live.Fault = 9.1, ""
	if err := record.WriteLive(run, live); err != nil {
		t.Fatal(err)
	}
	wait("the window healed", `document.querySelectorAll('li.window.open').length === 0 && document.querySelectorAll('li.window').length === 1`)
	if err := record.WriteLive(run, record.Live{Phase: "done", Line: "verdict: valid", Done: true}); err != nil {
		t.Fatal(err)
	}
	wait("the end and the report's link", `!document.getElementById('done').hidden && document.getElementById('report').getAttribute('href') === 'latest/report.html'`)
}
