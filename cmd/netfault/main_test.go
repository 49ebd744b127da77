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
		basis   uint32
		rate    uint64
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
		{args: []string{"stats"}, verb: "stats"},
		{args: []string{"stats", "x"}, wantErr: "takes no arguments"},
		{args: []string{"loss", "12.5", "172.18.0.3"}, verb: "loss", basis: 1250, ips: []netip.Addr{ip("172.18.0.3")}},
		{args: []string{"loss", "100", "172.18.0.3"}, verb: "loss", basis: 10000, ips: []netip.Addr{ip("172.18.0.3")}},
		{args: []string{"loss", "0.01", "172.18.0.3"}, verb: "loss", basis: 1, ips: []netip.Addr{ip("172.18.0.3")}},
		{args: []string{"loss", "0"}, verb: "loss"},
		{args: []string{"loss", "0", "172.18.0.3"}, wantErr: "takes no IPs"},
		{args: []string{"loss", "10"}, wantErr: "at least one IP"},
		{args: []string{"loss"}, wantErr: "needs a percentage"},
		{args: []string{"loss", "3.333", "1.2.3.4"}, wantErr: "at most two decimals"},
		{args: []string{"loss", "101", "1.2.3.4"}, wantErr: "from 0 to 100"},
		{args: []string{"loss", "-1", "1.2.3.4"}, wantErr: "from 0 to 100"},
		{args: []string{"loss", "ten", "1.2.3.4"}, wantErr: "want a percentage"},
		{args: []string{"loss", "10", "n2"}, wantErr: `"n2" is not an IP`},
		{args: []string{"rate", "125000"}, verb: "rate", rate: 125000},
		{args: []string{"rate", "0"}, verb: "rate"},
		{args: []string{"rate", "999"}, wantErr: "from 1000"},
		{args: []string{"rate", "1mbit"}, wantErr: "whole number of bytes"},
		{args: []string{"rate"}, wantErr: "takes one number"},
	}
	for _, c := range cases {
		got, err := parseArgs(c.args)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("parseArgs(%q) error = %v, want %q", c.args, err, c.wantErr)
			}
			continue
		}
		if err != nil || got.verb != c.verb || !reflect.DeepEqual(got.ips, c.ips) || got.lossBasis != c.basis || got.rate != c.rate {
			t.Errorf("parseArgs(%q) = %+v, %v; want %s %v basis %d rate %d", c.args, got, err, c.verb, c.ips, c.basis, c.rate)
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
		{"loss", func(c *nftables.Conn) {
			queueLoss(c, 1250, []netip.Addr{netip.MustParseAddr("172.18.0.3"), netip.MustParseAddr("fd00::3")})
		}, []int{newTable, delTable, newTable, newSet, newElem, newSet, newElem, newChain, newRule, newRule, newRule, newRule, newChain, newRule, newRule, newRule, newRule}},
		{"loss 0", func(c *nftables.Conn) { dropTable(c, newLossTable()) }, []int{newTable, delTable}},
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

// The drop rule is nft's "numgen random mod 10000 < basis": the number is
// put in network order before a byte-wise compare with a big-endian basis,
// which is what nft emits (nft lists the rule back that way).
func TestRandomBelow(t *testing.T) {
	e := randomBelow(1250)
	ng, bo, cmp := e[0].(*expr.Numgen), e[1].(*expr.Byteorder), e[2].(*expr.Cmp)
	if ng.Modulus != lossModulus || ng.Type != unix.NFT_NG_RANDOM || ng.Register != 1 {
		t.Errorf("numgen %+v", ng)
	}
	if bo.Op != expr.ByteorderHton || bo.Size != 4 || bo.Len != 4 || bo.SourceRegister != 1 || bo.DestRegister != 1 {
		t.Errorf("byteorder %+v", bo)
	}
	if cmp.Op != expr.CmpOpLt || !reflect.DeepEqual(cmp.Data, []byte{0, 0, 0x04, 0xe2}) {
		t.Errorf("cmp %+v, want lt 0x000004e2", cmp)
	}
}

func TestTbfFor(t *testing.T) {
	for _, c := range []struct {
		rate, burst uint64
	}{{1000, 16 << 10}, {125000, 16 << 10}, {100 << 20, (100 << 20) / 100}} {
		q := tbfFor(3, c.rate)
		if q.Rate != c.rate || uint64(q.Limit) != c.burst+c.rate/5 || q.LinkIndex != 3 || q.Buffer == 0 {
			t.Errorf("tbfFor(%d) = rate %d limit %d buffer %d, want limit %d", c.rate, q.Rate, q.Limit, q.Buffer, c.burst+c.rate/5)
		}
	}
}

func TestSameAddrs(t *testing.T) {
	a := []netip.Addr{netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3")}
	b := []netip.Addr{netip.MustParseAddr("10.0.0.3"), netip.MustParseAddr("10.0.0.2")}
	if !sameAddrs(a, b) || sameAddrs(a, a[:1]) {
		t.Error("sameAddrs is not order-blind set equality")
	}
}
