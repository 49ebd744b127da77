package main

import (
	"net/netip"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

const (
	tableName = "jschaos"
	set4      = "blocked4"
	set6      = "blocked6"
)

func newTable() *nftables.Table {
	return &nftables.Table{Family: nftables.TableFamilyINet, Name: tableName}
}

// heal queues a delete of our table. Adding it first makes the delete succeed
// when the table is absent (adding an existing table is a no-op), so heal is
// idempotent in one batch.
func heal(conn *nftables.Conn) { dropTable(conn, newTable()) }

// isolate queues one atomic batch: drop the old table, then build
//
//	table inet jschaos {
//	  set blocked4 { type ipv4_addr; elements = {...} }
//	  set blocked6 { type ipv6_addr; elements = {...} }
//	  chain input  { type filter hook input priority 0; ip saddr @blocked4 drop; ip6 saddr @blocked6 drop }
//	  chain output { type filter hook output priority 0; ip daddr @blocked4 drop; ip6 daddr @blocked6 drop }
//	}
//
// Rules match before conntrack state, so established connections die too.
func isolate(conn *nftables.Conn, ips []netip.Addr) {
	heal(conn)
	t := conn.AddTable(newTable())
	s4, s6 := addPeerSets(conn, t, set4, set6, ips)
	filterChains(conn, t, func(ch *nftables.Chain, dst bool) {
		conn.AddRule(&nftables.Rule{Table: t, Chain: ch, Exprs: dropMatching(false, dst, s4)})
		conn.AddRule(&nftables.Rule{Table: t, Chain: ch, Exprs: dropMatching(true, dst, s6)})
	})
}

// addPeerSets adds the table's two address sets, named name4 and name6,
// holding the IPv4 and the IPv6 addresses of ips.
func addPeerSets(conn *nftables.Conn, t *nftables.Table, name4, name6 string, ips []netip.Addr) (s4, s6 *nftables.Set) {
	s4 = &nftables.Set{Table: t, Name: name4, KeyType: nftables.TypeIPAddr}
	s6 = &nftables.Set{Table: t, Name: name6, KeyType: nftables.TypeIP6Addr}
	var e4, e6 []nftables.SetElement
	for _, ip := range ips {
		if ip.Is4() {
			e4 = append(e4, nftables.SetElement{Key: ip.AsSlice()})
		} else {
			e6 = append(e6, nftables.SetElement{Key: ip.AsSlice()})
		}
	}
	// AddSet only fails on a malformed set; the error also lands in conn and
	// is returned by Flush.
	_ = conn.AddSet(s4, e4)
	_ = conn.AddSet(s6, e6)
	return s4, s6
}

// filterChains adds the table's input and output filter chains (policy
// accept) and lets rules fill each; dst is true for output, whose peers
// are the packets' destinations.
func filterChains(conn *nftables.Conn, t *nftables.Table, rules func(ch *nftables.Chain, dst bool)) {
	for _, h := range []struct {
		name string
		hook *nftables.ChainHook
		dst  bool
	}{{"input", nftables.ChainHookInput, false}, {"output", nftables.ChainHookOutput, true}} {
		accept := nftables.ChainPolicyAccept
		ch := conn.AddChain(&nftables.Chain{
			Name: h.name, Table: t, Type: nftables.ChainTypeFilter,
			Hooknum: h.hook, Priority: nftables.ChainPriorityFilter, Policy: &accept,
		})
		rules(ch, h.dst)
	}
}

// dropMatching is "ip[6] saddr|daddr @set drop" for an inet table, where the
// address family must be checked before loading the header field.
func dropMatching(v6, dst bool, s *nftables.Set) []expr.Any {
	proto, off, n := byte(unix.NFPROTO_IPV4), uint32(12), uint32(4) // IPv4 saddr at 12, daddr at 16
	if v6 {
		proto, off, n = unix.NFPROTO_IPV6, 8, 16 // IPv6 saddr at 8, daddr at 24
	}
	if dst {
		off += n
	}
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyNFPROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{proto}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: off, Len: n},
		&expr.Lookup{SourceRegister: 1, SetName: s.Name, SetID: s.ID},
		&expr.Verdict{Kind: expr.VerdictDrop},
	}
}
