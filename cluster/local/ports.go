package local

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// nodePorts are one node's listeners. They are picked once per cluster and
// kept across restarts, so a node's URLs stay valid for the whole run.
type nodePorts struct {
	Client, Monitor, Cluster int
}

// lowestPort is the bottom of the range ports are picked from when the
// kernel's ephemeral range leaves room below it.
const lowestPort = 10000

// pickRange is where listener ports come from: below the kernel's ephemeral
// range when there is room, so that a stopped node's port cannot be taken
// by the source port of some outgoing connection before it restarts. ok is
// false when there is no usable range (then the kernel picks, port 0).
func pickRange(ipLocalPortRange string) (lo, hi int, ok bool) {
	f := strings.Fields(ipLocalPortRange)
	if len(f) != 2 {
		return 0, 0, false
	}
	ephemeralLo, err := strconv.Atoi(f[0])
	if err != nil || ephemeralLo-lowestPort < 1000 {
		return 0, 0, false
	}
	return lowestPort, ephemeralLo - 1, true
}

func readPortRange() string {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return ""
	}
	return string(b)
}

// pickPorts returns n distinct free TCP ports on 127.0.0.1. Every port is
// held open until all are picked, so none is handed out twice.
func pickPorts(n int, portRange string) ([]int, error) {
	lo, hi, ranged := pickRange(portRange)
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries > 100*n {
			return nil, fmt.Errorf("could not find %d free ports on 127.0.0.1", n)
		}
		addr := "127.0.0.1:0"
		if ranged && tries < 50*n {
			addr = fmt.Sprintf("127.0.0.1:%d", lo+rand.IntN(hi-lo+1))
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			continue
		}
		held = append(held, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// pickNodePorts picks client, monitor and cluster ports for nodes nodes.
func pickNodePorts(nodes int) ([]nodePorts, error) {
	p, err := pickPorts(3*nodes, readPortRange())
	if err != nil {
		return nil, err
	}
	out := make([]nodePorts, nodes)
	for i := range out {
		out[i] = nodePorts{Client: p[3*i], Monitor: p[3*i+1], Cluster: p[3*i+2]}
	}
	return out, nil
}
