package main

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

const (
	lossTableName = "jschaos_loss"
	peers4        = "peers4"
	peers6        = "peers6"
	// lossModulus is the range of the random number a packet draws: a loss
	// of P percent drops it when the number is below P*100.
	lossModulus = 10000
)

// Rules are told apart by their user data: one counts every packet to or
// from a peer, the next drops a share of them and counts what it dropped.
var (
	tagSeen = []byte("jschaos:seen")
	tagDrop = []byte("jschaos:drop")
)

func newLossTable() *nftables.Table {
	return &nftables.Table{Family: nftables.TableFamilyINet, Name: lossTableName}
}

// lossState is the loss in force, read back from the kernel.
type lossState struct {
	basis         uint32 // of lossModulus; 0 when there is no loss table
	ips           []netip.Addr
	seen, dropped uint64
}

// setLoss makes the loss in force drop basis/lossModulus of the packets to
// and from ips. basis 0 removes the table. A loss already in force for
// exactly these peers at this share is left alone, so that its counters
// keep counting when the runtime applies the same state again.
func setLoss(conn *nftables.Conn, basis uint32, ips []netip.Addr) error {
	if basis == 0 {
		dropTable(conn, newLossTable())
		return flush(conn)
	}
	if cur, err := readLoss(conn); err == nil && cur.basis == basis && sameAddrs(cur.ips, ips) {
		return nil
	}
	queueLoss(conn, basis, ips)
	return flush(conn)
}

// dropTable queues a delete of t that succeeds when t is absent: adding an
// existing table is a no-op.
func dropTable(conn *nftables.Conn, t *nftables.Table) {
	conn.DelTable(conn.AddTable(t))
}

// queueLoss queues one atomic batch: drop the old table, then build
//
//	table inet jschaos_loss {
//	  set peers4 { type ipv4_addr; elements = {...} }
//	  set peers6 { type ipv6_addr; elements = {...} }
//	  chain input {
//	    type filter hook input priority 0;
//	    ip saddr @peers4 counter
//	    ip saddr @peers4 numgen random mod 10000 < basis counter drop
//	    (the same for ip6)
//	  }
//	  chain output { the same with daddr }
//	}
func queueLoss(conn *nftables.Conn, basis uint32, ips []netip.Addr) {
	dropTable(conn, newLossTable())
	t := conn.AddTable(newLossTable())
	s4, s6 := addPeerSets(conn, t, peers4, peers6, ips)
	filterChains(conn, t, func(ch *nftables.Chain, dst bool) {
		for _, s := range []struct {
			v6  bool
			set *nftables.Set
		}{{false, s4}, {true, s6}} {
			match := matchSet(s.v6, dst, s.set)
			conn.AddRule(&nftables.Rule{Table: t, Chain: ch, UserData: tagSeen,
				Exprs: append(match, &expr.Counter{})})
			conn.AddRule(&nftables.Rule{Table: t, Chain: ch, UserData: tagDrop,
				Exprs: append(append(slices.Clone(match), randomBelow(basis)...), &expr.Counter{}, &expr.Verdict{Kind: expr.VerdictDrop})})
		}
	})
}

// matchSet is "ip[6] saddr|daddr @set" for an inet table.
func matchSet(v6, dst bool, s *nftables.Set) []expr.Any {
	e := dropMatching(v6, dst, s)
	return e[:len(e)-1] // without the verdict
}

// randomBelow is "numgen random mod lossModulus < basis". numgen writes a
// host-order number and cmp compares bytes, so, as nft does, the number is
// turned to network order first and compared with a big-endian basis.
func randomBelow(basis uint32) []expr.Any {
	return []expr.Any{
		&expr.Numgen{Register: 1, Modulus: lossModulus, Type: unix.NFT_NG_RANDOM},
		&expr.Byteorder{SourceRegister: 1, DestRegister: 1, Op: expr.ByteorderHton, Len: 4, Size: 4},
		&expr.Cmp{Op: expr.CmpOpLt, Register: 1, Data: binaryutil.BigEndian.PutUint32(basis)},
	}
}

// readLoss reads the loss in force and its counters; none when the table
// is absent.
func readLoss(conn *nftables.Conn) (lossState, error) {
	t := newLossTable()
	if _, err := conn.ListTableOfFamily(t.Name, t.Family); err != nil {
		return lossState{}, nil // no table: no loss
	}
	var st lossState
	for _, name := range []string{peers4, peers6} {
		s, err := conn.GetSetByName(t, name)
		if err != nil {
			return lossState{}, fmt.Errorf("read set %s: %w", name, err)
		}
		els, err := conn.GetSetElements(s)
		if err != nil {
			return lossState{}, fmt.Errorf("read set %s: %w", name, err)
		}
		for _, e := range els {
			if ip, ok := netip.AddrFromSlice(e.Key); ok {
				st.ips = append(st.ips, ip)
			}
		}
	}
	for _, chain := range []string{"input", "output"} {
		rules, err := conn.GetRules(t, &nftables.Chain{Name: chain, Table: t})
		if err != nil {
			return lossState{}, fmt.Errorf("read chain %s: %w", chain, err)
		}
		for _, r := range rules {
			for _, e := range r.Exprs {
				switch e := e.(type) {
				case *expr.Counter:
					if slices.Equal(r.UserData, tagSeen) {
						st.seen += e.Packets
					} else if slices.Equal(r.UserData, tagDrop) {
						st.dropped += e.Packets
					}
				case *expr.Cmp:
					if e.Op == expr.CmpOpLt && len(e.Data) == 4 {
						st.basis = binary.BigEndian.Uint32(e.Data)
					}
				}
			}
		}
	}
	return st, nil
}

func sameAddrs(a, b []netip.Addr) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.SortFunc(a, netip.Addr.Compare)
	slices.SortFunc(b, netip.Addr.Compare)
	return slices.Equal(a, b)
}
