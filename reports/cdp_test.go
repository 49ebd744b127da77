package reports

// A small client of the Chrome DevTools protocol, enough for the browser
// test: start headless Chromium, open a page, collect console errors and
// exceptions, evaluate expressions, take screenshots. It speaks WebSocket
// with the standard library only (client frames, no extensions), so the
// test needs no Go dependency, only Debian's chromium package.

import (
	"bufio"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// findChromium returns the browser to drive: $CHROMIUM, else the first of
// the usual names on PATH.
func findChromium() (string, bool) {
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

type browser struct {
	cmd *exec.Cmd
	ws  *wsConn

	mu       sync.Mutex
	nextID   int
	waiting  map[int]chan cdpMsg
	events   []cdpMsg
	eventsCh chan struct{}
	readErr  error
}

type cdpMsg struct {
	ID     int             `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

var devtoolsRE = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// startBrowser starts headless Chromium with a throwaway profile and
// connects to its first page.
func startBrowser(bin, profile string, width, height int) (*browser, error) {
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--remote-allow-origins=*",
		"--user-data-dir="+profile, fmt.Sprintf("--window-size=%d,%d", width, height), "about:blank")
	// Its own process group, so closing it ends its renderer and GPU
	// helpers too, not only the browser process.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	b := &browser{cmd: cmd, waiting: map[int]chan cdpMsg{}, eventsCh: make(chan struct{}, 1)}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if m := devtoolsRE.FindStringSubmatch(sc.Text()); m != nil && !sent {
				found <- m[1]
				sent = true
			}
		}
	}()
	var wsURL string
	select {
	case wsURL = <-found:
	case <-time.After(30 * time.Second):
		b.close()
		return nil, errors.New("chromium did not print its DevTools address within 30s")
	}
	u, err := url.Parse(wsURL)
	if err != nil {
		b.close()
		return nil, err
	}
	page, err := firstPage(u.Host)
	if err != nil {
		b.close()
		return nil, err
	}
	if b.ws, err = dialWS(page); err != nil {
		b.close()
		return nil, err
	}
	go b.readLoop()
	return b, nil
}

// firstPage asks the DevTools HTTP endpoint for the page target's socket.
func firstPage(host string) (string, error) {
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get("http://" + host + "/json/list")
		if err == nil {
			var targets []struct {
				Type string `json:"type"`
				WS   string `json:"webSocketDebuggerUrl"`
			}
			err = json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
			for _, t := range targets {
				if t.Type == "page" && t.WS != "" {
					return t.WS, nil
				}
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no page target at %s: %v", host, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// close asks the browser to quit, then ends its process group if it has
// not within 5 s, and waits for it.
func (b *browser) close() {
	if b.ws != nil {
		_ = b.call("Browser.close", nil, nil)
		b.ws.c.Close()
	}
	if b.cmd.Process == nil {
		return
	}
	done := make(chan struct{})
	go func() { _ = b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	// Helpers may outlive the browser by a moment; end what is left of the
	// group (ours alone: it was made for this browser).
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
}

func (b *browser) readLoop() {
	for {
		data, err := b.ws.read()
		if err != nil {
			b.mu.Lock()
			b.readErr = err
			for id, ch := range b.waiting {
				close(ch)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		var m cdpMsg
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch := b.waiting[m.ID]; ch != nil {
				ch <- m
				delete(b.waiting, m.ID)
			}
		} else {
			b.events = append(b.events, m)
			select {
			case b.eventsCh <- struct{}{}:
			default:
			}
		}
		b.mu.Unlock()
	}
}

// call sends a command and waits for its result.
func (b *browser) call(method string, params any, result any) error {
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return b.readErr
	}
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMsg, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return err
	}
	if err := b.ws.write(msg); err != nil {
		return err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: connection closed: %v", method, b.readErr)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-time.After(60 * time.Second):
		return fmt.Errorf("%s: no answer within 60s", method)
	}
}

// waitEvent waits for an event of that method, seen since the last call.
func (b *browser) waitEvent(method string, from int, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		b.mu.Lock()
		for _, e := range b.events[min(from, len(b.events)):] {
			if e.Method == method {
				b.mu.Unlock()
				return nil
			}
		}
		b.mu.Unlock()
		select {
		case <-b.eventsCh:
		case <-deadline:
			return fmt.Errorf("no %s within %s", method, timeout)
		}
	}
}

func (b *browser) eventCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.events)
}

// problems lists console errors, uncaught exceptions and error log entries
// (failed loads among them) seen so far.
func (b *browser) problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, e := range b.events {
		switch e.Method {
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string `json:"type"`
				Args []struct {
					Value       any    `json:"value"`
					Description string `json:"description"`
				} `json:"args"`
			}
			if json.Unmarshal(e.Params, &p) == nil && (p.Type == "error" || p.Type == "assert") {
				var parts []string
				for _, a := range p.Args {
					parts = append(parts, fmt.Sprint(a.Value)+a.Description)
				}
				out = append(out, "console."+p.Type+": "+strings.Join(parts, " "))
			}
		case "Runtime.exceptionThrown":
			var p struct {
				Details struct {
					Text      string `json:"text"`
					Exception struct {
						Description string `json:"description"`
					} `json:"exception"`
				} `json:"exceptionDetails"`
			}
			_ = json.Unmarshal(e.Params, &p)
			out = append(out, "exception: "+p.Details.Text+" "+p.Details.Exception.Description)
		case "Log.entryAdded":
			var p struct {
				Entry struct {
					Level  string `json:"level"`
					Source string `json:"source"`
					Text   string `json:"text"`
					URL    string `json:"url"`
				} `json:"entry"`
			}
			if json.Unmarshal(e.Params, &p) == nil && p.Entry.Level == "error" {
				out = append(out, fmt.Sprintf("log %s: %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL))
			}
		}
	}
	return out
}

// open navigates to u and waits for the load event.
func (b *browser) open(u string) error {
	for _, d := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := b.call(d, nil, nil); err != nil {
			return err
		}
	}
	from := b.eventCount()
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.call("Page.navigate", map[string]any{"url": u}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("navigate %s: %s", u, nav.ErrorText)
	}
	return b.waitEvent("Page.loadEventFired", from, 30*time.Second)
}

// eval runs a JavaScript expression and decodes its value into out.
func (b *browser) eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("eval %q: %s", expr, r.Exception.Text)
	}
	return json.Unmarshal(r.Result.Value, out)
}

// screenshot saves a PNG of the page region (CSS pixels); height 0 is the
// whole page.
func (b *browser) screenshot(path string, y, height float64) error {
	var m struct {
		Content struct {
			Width  float64 `json:"width"`
			Height float64 `json:"height"`
		} `json:"cssContentSize"`
	}
	if err := b.call("Page.getLayoutMetrics", nil, &m); err != nil {
		return err
	}
	if height <= 0 || y+height > m.Content.Height {
		height = m.Content.Height - y
	}
	var shot struct {
		Data string `json:"data"`
	}
	err := b.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": y, "width": m.Content.Width, "height": height, "scale": 1}}, &shot)
	if err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

// wsConn is a client WebSocket connection (RFC 6455), text frames only.
type wsConn struct {
	c  net.Conn
	r  *bufio.Reader
	mu sync.Mutex
}

func dialWS(raw string) (*wsConn, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	c, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	k := base64.StdEncoding.EncodeToString(key)
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", u.RequestURI(), u.Host, k)
	if _, err := io.WriteString(c, req); err != nil {
		c.Close()
		return nil, err
	}
	r := bufio.NewReaderSize(c, 1<<16)
	resp, err := http.ReadResponse(r, &http.Request{Method: "GET"})
	if err != nil {
		c.Close()
		return nil, err
	}
	sum := sha1.Sum([]byte(k + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		c.Close()
		return nil, fmt.Errorf("websocket handshake with %s: %s", u.Host, resp.Status)
	}
	return &wsConn{c: c, r: r}, nil
}

func (w *wsConn) write(payload []byte) error { return w.writeFrame(0x1, payload) }

func (w *wsConn) writeFrame(op byte, payload []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	hdr := []byte{0x80 | op}
	n := len(payload)
	switch {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n <= 0xffff:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	mask := make([]byte, 4)
	_, _ = rand.Read(mask)
	hdr = append(hdr, mask...)
	buf := make([]byte, n)
	for i := range payload {
		buf[i] = payload[i] ^ mask[i%4]
	}
	_, err := w.c.Write(append(hdr, buf...))
	return err
}

// read returns the next complete text or binary message, answering pings.
func (w *wsConn) read() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.r, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var e [2]byte
			if _, err := io.ReadFull(w.r, e[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(e[:]))
		case 127:
			var e [8]byte
			if _, err := io.ReadFull(w.r, e[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(e[:])
		}
		var mask []byte
		if h[1]&0x80 != 0 {
			mask = make([]byte, 4)
			if _, err := io.ReadFull(w.r, mask); err != nil {
				return nil, err
			}
		}
		if n > 1<<30 {
			return nil, fmt.Errorf("websocket frame of %d bytes", n)
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(w.r, p); err != nil {
			return nil, err
		}
		if mask != nil {
			for i := range p {
				p[i] ^= mask[i%4]
			}
		}
		switch op {
		case 0x8:
			return nil, io.EOF
		case 0x9:
			if err := w.writeFrame(0xA, p); err != nil {
				return nil, err
			}
			continue
		case 0xA:
			continue
		}
		msg = append(msg, p...)
		if fin {
			return msg, nil
		}
	}
}
