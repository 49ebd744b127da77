// Command netfault cuts or degrades a container's network. It runs inside a
// node container (which has CAP_NET_ADMIN) via docker exec, so the rules live
// in that container's own network namespace and never touch the host's.
//
//	netfault isolate IP [IP...]       drop every packet to and from these IPs
//	netfault heal                     remove the isolation
//	netfault show                     print the blocked IPs, one a line
//	netfault loss PERCENT IP [IP...]  drop PERCENT of the packets to and from these IPs, at random
//	netfault loss 0                   remove the loss
//	netfault rate BYTES_PER_SEC       limit what every interface sends (tc tbf)
//	netfault rate 0                   remove the limit
//	netfault stats                    print the loss and rate counters as JSON
//
// Isolation lives in the nftables table inet jschaos and loss in inet
// jschaos_loss, each rewritten in a single atomic batch, so "isolate"
// replaces the previous set and "heal" is one table delete. Loss and rate
// leave a state that is already in force alone, so its counters keep
// counting. It is pure Go (google/nftables, vishvananda/netlink): the image
// has no nft or tc binary.
package main

import (
	"fmt"
	"io"
	"math"
	"net/netip"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/google/nftables"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "netfault: "+oneLine(err.Error()))
		os.Exit(1)
	}
}

const usage = "usage: netfault isolate IP [IP...] | heal | show | loss PERCENT [IP...] | rate BYTES_PER_SEC | stats"

// command is a parsed command line.
type command struct {
	verb      string // isolate, heal, show, loss, rate or stats
	ips       []netip.Addr
	lossBasis uint32 // loss: drop when a random number below 10000 is under this
	rate      uint64 // rate: bytes per second
}

func parseArgs(args []string) (command, error) {
	if len(args) == 0 {
		return command{}, fmt.Errorf("%s", usage)
	}
	c := command{verb: args[0]}
	var err error
	switch c.verb {
	case "heal", "show", "stats":
		if len(args) > 1 {
			return command{}, fmt.Errorf("%s takes no arguments; %s", c.verb, usage)
		}
	case "isolate":
		if len(args) == 1 {
			return command{}, fmt.Errorf("isolate needs at least one IP; %s", usage)
		}
		c.ips, err = parseIPs(args[1:])
	case "loss":
		if len(args) == 1 {
			return command{}, fmt.Errorf("loss needs a percentage; %s", usage)
		}
		if c.lossBasis, err = parseLoss(args[1]); err != nil {
			return command{}, err
		}
		switch {
		case c.lossBasis == 0 && len(args) > 2:
			return command{}, fmt.Errorf("loss 0 removes the loss and takes no IPs; %s", usage)
		case c.lossBasis > 0 && len(args) == 2:
			return command{}, fmt.Errorf("loss %s needs at least one IP; %s", args[1], usage)
		}
		c.ips, err = parseIPs(args[2:])
	case "rate":
		if len(args) != 2 {
			return command{}, fmt.Errorf("rate takes one number, bytes per second; %s", usage)
		}
		c.rate, err = strconv.ParseUint(args[1], 10, 64)
		if err != nil || (c.rate > 0 && c.rate < minRate) {
			return command{}, fmt.Errorf("rate %q: want 0 (off) or a whole number of bytes per second from %d", args[1], minRate)
		}
	default:
		return command{}, fmt.Errorf("unknown command %q; %s", c.verb, usage)
	}
	if err != nil {
		return command{}, err
	}
	return c, nil
}

func parseIPs(args []string) ([]netip.Addr, error) {
	var ips []netip.Addr
	seen := map[netip.Addr]bool{}
	for _, a := range args {
		ip, err := netip.ParseAddr(a)
		if err != nil || ip.Zone() != "" {
			return nil, fmt.Errorf("%q is not an IP address", a)
		}
		ip = ip.Unmap() // ::ffff:1.2.3.4 travels as IPv4
		if !seen[ip] {
			seen[ip] = true
			ips = append(ips, ip)
		}
	}
	return ips, nil
}

// parseLoss reads a percentage with at most two decimals (nftables draws a
// random number below 10000) as the count of those numbers that drop.
func parseLoss(s string) (uint32, error) {
	p, err := strconv.ParseFloat(s, 64)
	basis := math.Round(p * 100)
	if err != nil || p < 0 || p > 100 || math.Abs(basis-p*100) > 1e-6 {
		return 0, fmt.Errorf("loss %q: want a percentage from 0 to 100 with at most two decimals", s)
	}
	return uint32(basis), nil
}

func run(args []string, out io.Writer) error {
	c, err := parseArgs(args)
	if err != nil {
		return err
	}
	conn, err := nftables.New()
	if err != nil {
		return err
	}
	switch c.verb {
	case "isolate":
		isolate(conn, c.ips)
		return flush(conn)
	case "heal":
		heal(conn)
		return flush(conn)
	case "loss":
		return setLoss(conn, c.lossBasis, c.ips)
	case "rate":
		return setRate(c.rate)
	case "stats":
		return printStats(conn, out)
	default:
		ips, err := blocked(conn)
		if err != nil {
			return err
		}
		for _, ip := range ips {
			fmt.Fprintln(out, ip)
		}
		return nil
	}
}

func flush(conn *nftables.Conn) error {
	return permissionHint(conn.Flush())
}

// permissionHint says what a refusal by the kernel needs.
func permissionHint(err error) error {
	if err != nil && strings.Contains(err.Error(), "operation not permitted") {
		return fmt.Errorf("%v (needs CAP_NET_ADMIN: run as root in a container started with --cap-add NET_ADMIN)", err)
	}
	return err
}

// blocked lists the IPs in both sets, sorted; none when the table is absent.
func blocked(conn *nftables.Conn) ([]netip.Addr, error) {
	t := newTable()
	if _, err := conn.ListTableOfFamily(t.Name, t.Family); err != nil {
		return nil, nil // no table: nothing is blocked
	}
	var ips []netip.Addr
	for _, name := range []string{set4, set6} {
		s, err := conn.GetSetByName(t, name)
		if err != nil {
			return nil, fmt.Errorf("read set %s: %w", name, err)
		}
		els, err := conn.GetSetElements(s)
		if err != nil {
			return nil, fmt.Errorf("read set %s: %w", name, err)
		}
		for _, e := range els {
			if ip, ok := netip.AddrFromSlice(e.Key); ok {
				ips = append(ips, ip)
			}
		}
	}
	sort.Slice(ips, func(i, j int) bool { return ips[i].Less(ips[j]) })
	return ips, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
