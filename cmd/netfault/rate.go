package main

import (
	"fmt"
	"net"

	"github.com/vishvananda/netlink"
)

// minRate is the lowest rate accepted: below it a single full-size packet
// waits longer than a route ping's patience.
const minRate = 1000

// tbfFor is the token bucket for bytesPerSec: a burst of 10 ms worth of
// traffic, at least 16 KiB (more than one full frame, or nothing passes),
// and a queue of 200 ms worth on top, like tc's "latency 200ms".
func tbfFor(link int, bytesPerSec uint64) *netlink.Tbf {
	burst := max(bytesPerSec/100, 16<<10)
	limit := burst + bytesPerSec/5
	return &netlink.Tbf{
		QdiscAttrs: netlink.QdiscAttrs{LinkIndex: link, Handle: netlink.MakeHandle(1, 0), Parent: netlink.HANDLE_ROOT},
		Rate:       bytesPerSec,
		Buffer:     netlink.Xmittime(bytesPerSec, uint32(burst)),
		Limit:      uint32(min(limit, 1<<31)),
	}
}

// shapedLinks are the interfaces a rate applies to: every one that is up
// and not loopback (a node container has one, on its cluster network).
func shapedLinks() ([]netlink.Link, error) {
	links, err := netlink.LinkList()
	if err != nil {
		return nil, fmt.Errorf("list interfaces: %w", err)
	}
	var out []netlink.Link
	for _, l := range links {
		a := l.Attrs()
		if a.Flags&net.FlagLoopback == 0 && a.Flags&net.FlagUp != 0 {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no interface is up besides loopback")
	}
	return out, nil
}

// rootTbf is the tbf at the root of link, or nil.
func rootTbf(link netlink.Link) (*netlink.Tbf, error) {
	qs, err := netlink.QdiscList(link)
	if err != nil {
		return nil, fmt.Errorf("list qdiscs of %s: %w", link.Attrs().Name, err)
	}
	for _, q := range qs {
		if t, ok := q.(*netlink.Tbf); ok && q.Attrs().Parent == netlink.HANDLE_ROOT {
			return t, nil
		}
	}
	return nil, nil
}

// setRate puts a tbf of bytesPerSec at the root of every shaped interface,
// or removes it (0). A tbf already at that rate is left alone, so its
// statistics keep counting.
func setRate(bytesPerSec uint64) error {
	links, err := shapedLinks()
	if err != nil {
		return err
	}
	for _, l := range links {
		cur, err := rootTbf(l)
		if err != nil {
			return err
		}
		switch {
		case bytesPerSec == 0 && cur != nil:
			err = netlink.QdiscDel(cur)
		case bytesPerSec == 0, cur != nil && cur.Rate == bytesPerSec:
			continue
		default:
			err = netlink.QdiscReplace(tbfFor(l.Attrs().Index, bytesPerSec))
		}
		if err != nil {
			return fmt.Errorf("tc qdisc on %s: %w", l.Attrs().Name, permissionHint(err))
		}
	}
	return nil
}

// rateState is the rate in force on the shaped interfaces and the tbf's
// statistics, summed.
type rateState struct {
	rate                              uint64
	bytes, packets, drops, overlimits uint64
}

func readRate() (rateState, error) {
	links, err := shapedLinks()
	if err != nil {
		return rateState{}, err
	}
	var st rateState
	for _, l := range links {
		t, err := rootTbf(l)
		if err != nil {
			return rateState{}, err
		}
		if t == nil {
			continue
		}
		st.rate = t.Rate
		if s := t.Statistics; s != nil {
			if s.Basic != nil {
				st.bytes += s.Basic.Bytes
				st.packets += uint64(s.Basic.Packets)
			}
			if s.Queue != nil {
				st.drops += uint64(s.Queue.Drops)
				st.overlimits += uint64(s.Queue.Overlimits)
			}
		}
	}
	return st, nil
}
