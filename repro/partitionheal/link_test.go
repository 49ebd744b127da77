package partitionheal

import (
	"io"
	"net"
	"sync"
	"testing"
)

// link forwards one server's route connections to another's cluster
// port, so that the test can cut the pair apart and join it again: the
// servers route only through links (their routes name the links, and
// NoAdvertise keeps them from learning each other's own ports).
type link struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	cut   bool
	conns map[net.Conn]bool
}

func newLink(t *testing.T, target string) *link {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &link{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); l.closeAll() })
	go l.serve()
	return l
}

func (l *link) addr() string { return l.ln.Addr().String() }

func (l *link) serve() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		l.mu.Lock()
		if l.cut { // refused while cut, as a host that rejects the port
			l.mu.Unlock()
			c.Close()
			continue
		}
		l.mu.Unlock()
		go l.forward(c)
	}
}

func (l *link) forward(c net.Conn) {
	up, err := net.Dial("tcp", l.target)
	if err != nil {
		c.Close()
		return
	}
	l.mu.Lock()
	if l.cut {
		l.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	l.conns[c], l.conns[up] = true, true
	l.mu.Unlock()
	go func() { io.Copy(up, c); up.Close(); c.Close() }()
	io.Copy(c, up)
	c.Close()
	up.Close()
}

// setCut cuts the link (closing what it carries) or joins it again.
func (l *link) setCut(cut bool) {
	l.mu.Lock()
	l.cut = cut
	l.mu.Unlock()
	if cut {
		l.closeAll()
	}
}

func (l *link) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.Close()
		delete(l.conns, c)
	}
}
