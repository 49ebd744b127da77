package reportstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/jetstream-chaos/jetstream-chaos/internal/testenv"
)

// The browser test drives headless Chromium with chromedp, over the
// DevTools protocol: it needs Debian's chromium package and nothing else.

// FindChromium returns the browser to drive: $CHROMIUM, else the first of
// the usual names on PATH (Debian's is /usr/bin/chromium).
func FindChromium() (string, bool) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// NeedChromium gates a test that drives headless Chromium
// (testenv.Require: it fails under CI=true without one).
func NeedChromium(t testing.TB) {
	t.Helper()
	testenv.Require(t, testenv.Chromium(func() error {
		if _, ok := FindChromium(); !ok {
			return errors.New("not found: $CHROMIUM is unset and none of chromium, chromium-browser, google-chrome, google-chrome-stable, headless_shell is on PATH")
		}
		return nil
	}))
}

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

// ProfileDir is a throwaway browser profile, unique to one browser, so the
// processes started with it can be found. Not t.TempDir: Chromium's
// helpers may still be writing there as the test ends, and that must not
// fail the test; it is removed on a best-effort basis.
func ProfileDir(t *testing.T) string {
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

// processesUsing lists the processes started with the profile dir.
func processesUsing(dir string) []string {
	want := []byte("--user-data-dir=" + dir + "\x00")
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, want) {
			out = append(out, e.Name()+" "+string(bytes.ReplaceAll(bytes.SplitN(b, []byte{0}, 2)[0], []byte{0}, []byte{' '})))
		}
	}
	return out
}

// problemLog collects what must not happen while the page loads: console
// errors, uncaught exceptions, error entries of the browser log and
// failed loads.
type problemLog struct {
	mu   sync.Mutex
	list []string
}

func (p *problemLog) listen(ev any) {
	var s string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
			return
		}
		var parts []string
		for _, a := range ev.Args {
			parts = append(parts, strings.TrimSpace(string(a.Value)+" "+a.Description))
		}
		s = "console." + string(ev.Type) + ": " + strings.Join(parts, " ")
	case *runtime.EventExceptionThrown:
		s = "exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			s += " " + ev.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level != log.EntryLevelError {
			return
		}
		s = fmt.Sprintf("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
	case *network.EventLoadingFailed:
		s = fmt.Sprintf("failed load (%s): %s", ev.Type, ev.ErrorText)
	default:
		return
	}
	p.mu.Lock()
	p.list = append(p.list, s)
	p.mu.Unlock()
}

func (p *problemLog) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.list...)
}

// PageFacts is what the test reads from the loaded page.
type PageFacts struct {
	Text   string  `json:"text"`
	Title  string  `json:"title"`
	Charts int     `json:"charts"`
	Narrow int     `json:"narrow"` // charts narrower than 200 px or flatter than 100 px
	Texts  int     `json:"texts"`  // text elements drawn inside the charts
	Height float64 `json:"height"`
	// Hovers are what Browse found of each Hover it was asked for.
	Hovers []HoverFacts `json:"-"`
}

const factsJS = `(() => {
	const charts = [...document.querySelectorAll('svg.chart')];
	return {text: document.body.innerText, title: document.title, charts: charts.length,
		narrow: charts.filter(s => { const r = s.getBoundingClientRect(); return r.width < 200 || r.height < 100; }).length,
		texts: charts.reduce((n, s) => n + s.querySelectorAll('text').length, 0),
		height: document.documentElement.scrollHeight};
})()`

// BrowserCase is a page the browser must render well.
type BrowserCase struct {
	Name string
	// Page renders a run and returns the path of its report.html.
	Page   func(t *testing.T) string
	Want   []string // texts the page must show
	Charts int      // at least this many SVG charts
	Height int      // page height in CSS px, at least
	Hovers []Hover  // elements that must show their hover text
}

// Hover is a kind of element with a hover text (an SVG <title>): at least
// Min elements match Selector, each on top where its first <rect> is
// drawn (what the mouse finds at the rect's centre is inside the
// element), and one of their titles holds Title. Later rects of an
// element (an event's line through the data) may lie under another's.
type Hover struct {
	Selector string
	Min      int
	Title    string
}

// HoverFacts is what the browser found of a Hover.
type HoverFacts struct {
	Count  int      `json:"count"`  // elements matched
	OnTop  int      `json:"ontop"`  // elements the mouse finds at their first rect
	Titles []string `json:"titles"` // the elements' hover texts
}

// hoverJS scrolls each element matching the selector into view and asks
// what the mouse finds at the centre of its first rect.
const hoverJS = `((sel) => {
	const els = [...document.querySelectorAll(sel)];
	const out = {count: els.length, ontop: 0, titles: []};
	for (const el of els) {
		const t = el.querySelector('title');
		out.titles.push(t ? t.textContent : '');
		const r = el.querySelector('rect');
		if (!r) continue;
		r.scrollIntoView({block: 'center', inline: 'center'});
		const b = r.getBoundingClientRect();
		const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
		if (b.width > 0 && b.height > 0 && hit && el.contains(hit)) out.ontop++;
	}
	window.scrollTo(0, 0);
	return out;
})`

// CheckInBrowser opens each case's page in headless Chromium: it must load
// with no console error, no exception, no error in the browser log and no
// failed load, show its texts and charts (at least 200 px wide, with their
// text), and it is screenshotted (full page and 1000 px slices, in
// $CHAOS_SCREENSHOTS, default /tmp/jetstream-chaos-screenshots). Chromium
// is gone when each case ends, helpers included. Without Chromium the test
// is gated as NeedChromium says.
func CheckInBrowser(t *testing.T, cases []BrowserCase) {
	t.Helper()
	NeedChromium(t)
	bin, _ := FindChromium()
	out := screenshotDir(t)
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			abs, err := filepath.Abs(tc.Page(t))
			if err != nil {
				t.Fatal(err)
			}
			u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
			profile := ProfileDir(t)
			got, probs, shots := Browse(t, bin, profile, u, filepath.Join(out, "report-"+tc.Name), tc.Hovers...)
			if len(probs) > 0 {
				t.Errorf("problems while loading the page:\n%s", strings.Join(probs, "\n"))
			}
			checkGone(t, profile)
			for _, w := range tc.Want {
				if !strings.Contains(got.Text, w) {
					t.Errorf("page text lacks %q", w)
				}
			}
			if got.Charts < tc.Charts {
				t.Errorf("%d charts rendered, want at least %d", got.Charts, tc.Charts)
			}
			if got.Narrow > 0 {
				t.Errorf("%d charts are narrower than 200px or flatter than 100px", got.Narrow)
			}
			if got.Texts < 10*got.Charts {
				t.Errorf("%d text elements in %d charts: titles, ticks and legends are missing", got.Texts, got.Charts)
			}
			if got.Height < float64(tc.Height) {
				t.Errorf("page is %.0fpx tall, want at least %d", got.Height, tc.Height)
			}
			for i, h := range tc.Hovers {
				checkHover(t, h, got.Hovers[i])
			}
			t.Logf("%s: title %q, %d charts, %.0fpx tall; screenshots %s", tc.Name, got.Title, got.Charts, got.Height, strings.Join(shots, ", "))
		})
	}
}

// checkHover fails t unless the page had h's elements, each hoverable.
func checkHover(t *testing.T, h Hover, got HoverFacts) {
	t.Helper()
	if got.Count < h.Min {
		t.Errorf("%d elements %s, want at least %d", got.Count, h.Selector, h.Min)
	}
	if got.OnTop < got.Count {
		t.Errorf("%s: the mouse finds %d of the %d", h.Selector, got.OnTop, got.Count)
	}
	if !slices.ContainsFunc(got.Titles, func(s string) bool { return strings.Contains(s, h.Title) }) {
		t.Errorf("no hover text of %s holds %q: %q", h.Selector, h.Title, got.Titles)
	}
}

// checkGone fails t when Chromium processes of the profile are left:
// chromedp.Cancel has closed the browser and waited for it; its helpers
// go with it.
func checkGone(t *testing.T, profile string) {
	deadline := time.Now().Add(5 * time.Second)
	left := processesUsing(profile)
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		left = processesUsing(profile)
	}
	if len(left) > 0 {
		t.Errorf("Chromium processes left after the test:\n%s", strings.Join(left, "\n"))
	}
}

// Browse opens u in a fresh headless Chromium, reads the page, lists the
// problems seen while it loaded and, unless shotPrefix is empty, saves
// screenshots: the whole page, its top, and the rest in viewport-sized
// slices for reading at full size. Before those it looks for each of
// hovers (got.Hovers, in order), scrolling to them and back to the top.
// The browser is closed before it returns.
func Browse(t *testing.T, bin, profile, u, shotPrefix string, hovers ...Hover) (got PageFacts, problems []string, shots []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// We are root in a container: Chromium needs --no-sandbox.
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 900))...)
	defer cancelAlloc()
	var probs problemLog
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithListener(probs.listen))
	defer cancelBrowser()
	defer func() {
		// Close the browser gracefully and wait for it, within 20 s; the
		// deferred cancels kill what is left.
		cctx, cc := context.WithTimeout(bctx, 20*time.Second)
		defer cc()
		if err := chromedp.Cancel(cctx); err != nil && ctx.Err() == nil {
			t.Logf("closing Chromium: %v", err)
		}
	}()

	if err := chromedp.Do(bctx,
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			if _, err := cdp.Call(ctx, tg, log.Enable, cdp.Empty{}); err != nil {
				return err
			}
			_, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{})
			return err
		}),
		chromedp.Navigate(u),
	); err != nil {
		t.Fatalf("open %s: %v", u, err)
	}
	got, err := chromedp.Run(bctx, chromedp.Evaluate[PageFacts](factsJS))
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	problems = probs.all()
	for _, h := range hovers {
		sel, _ := json.Marshal(h.Selector)
		hf, err := chromedp.Run(bctx, chromedp.Evaluate[HoverFacts](hoverJS+"("+string(sel)+")"))
		if err != nil {
			t.Fatalf("look for %s: %v", h.Selector, err)
		}
		got.Hovers = append(got.Hovers, hf)
	}
	if shotPrefix == "" {
		return got, problems, nil
	}
	save := func(name string, png []byte) {
		if err := os.WriteFile(name, png, 0o644); err != nil {
			t.Fatal(err)
		}
		shots = append(shots, name)
	}
	full, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	save(shotPrefix+".png", full)
	for i, y := 0, 0.0; y < got.Height && i <= 8; i, y = i+1, y+1000 {
		clip := &cdppage.Viewport{X: 0, Y: y, Width: 1280, Height: min(1000, got.Height-y), Scale: 1}
		png, err := chromedp.Call(bctx, cdppage.CaptureScreenshot, cdppage.CaptureScreenshotParams{
			Format: cdppage.CaptureScreenshotFormatPng, Clip: clip, CaptureBeyondViewport: new(true)})
		if err != nil {
			t.Fatalf("screenshot at %.0fpx: %v", y, err)
		}
		name := fmt.Sprintf("%s-part%d.png", shotPrefix, i)
		if i == 0 {
			name = shotPrefix + "-top.png"
		}
		save(name, png.Data)
	}
	return got, problems, shots
}
