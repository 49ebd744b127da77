package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/jetstream-chaos/jetstream-chaos/cluster"
)

func TestDialTransient(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{io.EOF, true},
		{fmt.Errorf("dial: %w", io.EOF), true},
		{nats.ErrNoServers, true},
		{nats.ErrTimeout, true},
		{&net.OpError{Op: "dial", Err: timeoutErr{}}, true},
		{nats.ErrAuthorization, false},
		{errors.New("tls: bad certificate"), false},
	} {
		if got := DialTransient(tc.err); got != tc.want {
			t.Errorf("DialTransient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// A node whose port accepts and closes at once (a killed container behind
// Docker's proxy) is dialled again until the client's ctx ends.
func TestConnectWithinDialsAgainPastEOF(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	nodes := []cluster.Node{{Name: "n1", ClientURL: "nats://" + ln.Addr().String()}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	nc, err := ConnectWithin(ctx, time.Minute, nodes, []int{0}, "eof")
	if err == nil {
		nc.Close()
		t.Fatal("connected to a port that only closes")
	}
	if n := accepted.Load(); n < 2 {
		t.Errorf("dialled %d times in 1 s, want again after the EOF (%v)", n, err)
	}
}
