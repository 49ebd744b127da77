package main

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

func TestParseArgs(t *testing.T) {
	ip := netip.MustParseAddr
	cases := []struct {
		args    []string
		verb    string
		ips     []netip.Addr
		wantErr string
	}{
		{args: []string{"heal"}, verb: "heal"},
		{args: []string{"show"}, verb: "show"},
		{args: []string{"isolate", "172.18.0.2", "fd00::2", "172.18.0.2", "::ffff:10.0.0.1"}, verb: "isolate",
			ips: []netip.Addr{ip("172.18.0.2"), ip("fd00::2"), ip("10.0.0.1")}},
		{args: nil, wantErr: "usage"},
		{args: []string{"isolate"}, wantErr: "at least one IP"},
		{args: []string{"isolate", "n2"}, wantErr: `"n2" is not an IP`},
		{args: []string{"isolate", "fe80::1%eth0"}, wantErr: "is not an IP"},
		{args: []string{"heal", "1.2.3.4"}, wantErr: "takes no arguments"},
		{args: []string{"partition"}, wantErr: "unknown command"},
	}
	for _, c := range cases {
		got, err := parseArgs(c.args)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("parseArgs(%q) error = %v, want %q", c.args, err, c.wantErr)
			}
			continue
		}
		if err != nil || got.verb != c.verb || !reflect.DeepEqual(got.ips, c.ips) {
			t.Errorf("parseArgs(%q) = %+v, %v; want %s %v", c.args, got, err, c.verb, c.ips)
		}
	}
}

func TestDropMatchingLoadsTheRightHeaderField(t *testing.T) {
	s := &nftables.Set{Name: "s", ID: 7}
	cases := []struct {
		v6, dst   bool
		proto     byte
		off, size uint32
	}{
		{false, false, unix.NFPROTO_IPV4, 12, 4},
		{false, true, unix.NFPROTO_IPV4, 16, 4},
		{true, false, unix.NFPROTO_IPV6, 8, 16},
		{true, true, unix.NFPROTO_IPV6, 24, 16},
	}
	for _, c := range cases {
		e := dropMatching(c.v6, c.dst, s)
		cmp := e[1].(*expr.Cmp)
		p := e[2].(*expr.Payload)
		l := e[3].(*expr.Lookup)
		v := e[4].(*expr.Verdict)
		if cmp.Data[0] != c.proto || p.Offset != c.off || p.Len != c.size || l.SetName != "s" || l.SetID != 7 || v.Kind != expr.VerdictDrop {
			t.Errorf("dropMatching(v6=%v, dst=%v) = proto %d, payload %d+%d, set %s/%d, verdict %v",
				c.v6, c.dst, cmp.Data[0], p.Offset, p.Len, l.SetName, l.SetID, v.Kind)
		}
	}
}

// TestBatches checks the netlink messages each command sends, through a fake
// netlink socket, so no root or CAP_NET_ADMIN is needed.
func TestBatches(t *testing.T) {
	const (
		newTable = unix.NFT_MSG_NEWTABLE
		delTable = unix.NFT_MSG_DELTABLE
		newSet   = unix.NFT_MSG_NEWSET
		newElem  = unix.NFT_MSG_NEWSETELEM
		newChain = unix.NFT_MSG_NEWCHAIN
		newRule  = unix.NFT_MSG_NEWRULE
	)
	cases := []struct {
		name  string
		queue func(*nftables.Conn)
		want  []int
	}{
		{"heal", heal, []int{newTable, delTable}},
		{"isolate", func(c *nftables.Conn) {
			isolate(c, []netip.Addr{netip.MustParseAddr("172.18.0.3"), netip.MustParseAddr("172.18.0.4")})
		}, []int{newTable, delTable, newTable, newSet, newElem, newSet, newChain, newRule, newRule, newChain, newRule, newRule}},
	}
	for _, c := range cases {
		var got []int
		conn, err := nftables.New(nftables.WithTestDial(func(req []netlink.Message) ([]netlink.Message, error) {
			for _, m := range req {
				if m.Header.Type>>8 == unix.NFNL_SUBSYS_NFTABLES {
					got = append(got, int(m.Header.Type&0xff))
				}
			}
			return req, nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		c.queue(conn)
		if err := conn.Flush(); err != nil {
			t.Fatalf("%s: Flush: %v", c.name, err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s sent message types %v, want %v", c.name, got, c.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	if got := oneLine("conn.Receive: a\n  b\tc\n"); got != "conn.Receive: a b c" {
		t.Errorf("oneLine = %q", got)
	}
}
