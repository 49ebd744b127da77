package cluster

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Runtimes fix a node's ports when its cluster starts and keep them across
// restarts, so its URLs stay valid for the whole run (ports Docker maps
// itself change on restart). They are drawn below the kernel's ephemeral
// range: a port there may be taken by some outgoing connection while its
// node is down, and then the node could not start again.

var (
	portsMu sync.Mutex
	inUse   = map[int]bool{} // handed to clusters of this process and not released
)

// FreePorts picks n distinct free ports on 127.0.0.1 that no other cluster
// of this process holds. Give them back with ReleasePorts.
func FreePorts(n int) ([]int, error) {
	b, _ := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	lo, hi := portRange(string(b))
	portsMu.Lock()
	defer portsMu.Unlock()
	free := func(p int) bool {
		if inUse[p] {
			return false
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			return false
		}
		l.Close()
		return true
	}
	ps, err := pickPorts(n, lo, hi, free, rand.IntN)
	for _, p := range ps {
		inUse[p] = true
	}
	return ps, err
}

// ReleasePorts hands ports back once their cluster is gone.
func ReleasePorts(ps []int) {
	portsMu.Lock()
	defer portsMu.Unlock()
	for _, p := range ps {
		delete(inUse, p)
	}
}

// portRange is where to pick from, given ip_local_port_range ("32768\t60999"):
// below the ephemeral range, or above it if too little is left below.
func portRange(ephemeral string) (lo, hi int) {
	const floor, minWidth = 10000, 2000
	f := strings.Fields(ephemeral)
	elo, err1 := strconv.Atoi(first(f, 0))
	ehi, err2 := strconv.Atoi(first(f, 1))
	switch {
	case err1 != nil || err2 != nil || elo > ehi:
		return 20000, 30000 // no such file: the Linux default range starts at 32768
	case elo-floor >= minWidth:
		return floor, elo
	case 65536-(ehi+1) >= minWidth:
		return ehi + 1, 65536
	default:
		return 1024, 65536 // the ephemeral range covers everything: take our chances
	}
}

func first(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return ""
}

// pickPorts draws n distinct ports from [lo, hi) that free accepts.
func pickPorts(n, lo, hi int, free func(int) bool, intn func(int) int) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for tries := 0; len(out) < n; tries++ {
		if tries > 50*n+100 {
			return out, fmt.Errorf("found only %d of %d free ports in %d-%d", len(out), n, lo, hi-1)
		}
		p := lo + intn(hi-lo)
		if seen[p] {
			continue
		}
		seen[p] = true
		if free(p) {
			out = append(out, p)
		}
	}
	return out, nil
}
