// Command netfault cuts a container off from chosen peers. It runs inside a
// node container (which has CAP_NET_ADMIN) via docker exec, so the rules live
// in that container's own network namespace and never touch the host's.
//
//	netfault isolate IP [IP...]  drop every packet to and from these IPs
//	netfault heal                remove all rules
//	netfault show                print the blocked IPs, one a line
//
// Everything lives in one nftables table, inet jschaos, rewritten in a single
// atomic batch, so "isolate" replaces the previous set and "heal" is one
// table delete. It is pure Go (google/nftables): the image has no nft binary.
package main

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"sort"
	"strings"

	"github.com/google/nftables"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "netfault: "+oneLine(err.Error()))
		os.Exit(1)
	}
}

const usage = "usage: netfault isolate IP [IP...] | heal | show"

// command is a parsed command line.
type command struct {
	verb string // isolate, heal or show
	ips  []netip.Addr
}

func parseArgs(args []string) (command, error) {
	if len(args) == 0 {
		return command{}, fmt.Errorf("%s", usage)
	}
	c := command{verb: args[0]}
	switch c.verb {
	case "heal", "show":
		if len(args) > 1 {
			return command{}, fmt.Errorf("%s takes no arguments; %s", c.verb, usage)
		}
	case "isolate":
		if len(args) == 1 {
			return command{}, fmt.Errorf("isolate needs at least one IP; %s", usage)
		}
		seen := map[netip.Addr]bool{}
		for _, a := range args[1:] {
			ip, err := netip.ParseAddr(a)
			if err != nil || ip.Zone() != "" {
				return command{}, fmt.Errorf("%q is not an IP address", a)
			}
			ip = ip.Unmap() // ::ffff:1.2.3.4 travels as IPv4
			if !seen[ip] {
				seen[ip] = true
				c.ips = append(c.ips, ip)
			}
		}
	default:
		return command{}, fmt.Errorf("unknown command %q; %s", c.verb, usage)
	}
	return c, nil
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
	if err := conn.Flush(); err != nil {
		if strings.Contains(err.Error(), "operation not permitted") {
			return fmt.Errorf("%v (needs CAP_NET_ADMIN: run as root in a container started with --cap-add NET_ADMIN)", err)
		}
		return err
	}
	return nil
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
